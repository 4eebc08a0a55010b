// One SeaTalk app as a channel instance. Between channel_start and channel_stop: an event loop
// of its own, coffer-callback supervised on it (its verified events become inbound messages),
// and the replies — POST /messaging/v2/single_chat (or group_chat) with thread_id inside
// "message", typing through single_chat_typing — sent one at a time in the host's order.
#pragma once

#include "config.hpp"
#include "state.hpp"

#include "channel_common/loop.hpp"

#include <coffer/sdk.hpp>

#include <memory>

namespace coffer::seatalk {

class Sender;

class SeaTalkChannel : public sdk::Instance {
public:
    explicit SeaTalkChannel(const sdk::Host& host);
    ~SeaTalkChannel() override;

    // Receiving: coffer-callback's verified events.
    void channel_start(sdk::Channel channel) override;
    void channel_stop() override;
    void stop() override { channel_stop(); }
    json::value status() override;
    // Sending (no edits: SeaTalk cannot replace a message's text).
    json::object channel_capabilities() override;
    void channel_typing(const json::object& request) override { enqueue(request, true); }
    void channel_send(const json::object& request) override { enqueue(request, false); }

private:
    void enqueue(const json::object& request, bool typing);

    const sdk::Host& host_;
    channel_common::Loop loop_;
    std::shared_ptr<SeaTalkState> state_;
    std::weak_ptr<Sender> sender_;
};

}  // namespace coffer::seatalk
