// An external channel: the core's requests become JSON lines on the adapter process's stdin,
// its lines become inbound messages, acks and health. The protocol (docs/channels.md):
//   adapter → host  {"type":"inbound","message":{"id","chat","sender","text",…}}
//                   {"type":"health","health":"receiving"|"not receiving: …", …shown in status}
//                   {"type":"log","message":"…"}
//   host → adapter  {"type":"ack","id":"…","ok":true|false}   (commit the platform offset on ok)
//                   {"type":"send"|"edit", "chat","ref","text","format","plain","thread"?}
//                   {"type":"typing","chat","thread"?}
#pragma once

#include "config.hpp"

#include "channel_common/loop.hpp"

#include <coffer/sdk.hpp>

#include <memory>
#include <mutex>

namespace coffer::channel_common {
class Supervisor;
}

namespace coffer::external {

class ExternalChannel : public sdk::Instance {
public:
    explicit ExternalChannel(const sdk::Host& host);
    ~ExternalChannel() override;

    json::object channel_capabilities() override;
    void channel_start(sdk::Channel channel) override;
    void channel_stop() override;
    void stop() override { channel_stop(); }
    void channel_send(const json::object& request) override { forward("send", request); }
    void channel_edit(const json::object& request) override { forward("edit", request); }
    void channel_typing(const json::object& request) override { forward("typing", request); }
    json::value status() override;

private:
    struct Shared;  // what the loop's handlers and status() share
    void forward(const char* type, const json::object& request);

    const sdk::Host& host_;
    channel_common::Loop loop_;
    std::shared_ptr<Shared> shared_;
    std::weak_ptr<channel_common::Supervisor> supervisor_;
};

}  // namespace coffer::external
