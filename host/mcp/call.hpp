// One request the gateway routed to a provider. The plugin knows it by its handle (a number from
// plugin/handles.hpp, see ABI 1.2) and completes it exactly once, from any thread. The completion
// is handed to the network thread (through the gateway's Handoff: one wake-up, see
// docs/decisions/0012), where the call retires its handle, runs its `done` and is deleted. The
// host completes (abandons) a call itself when the provider refused it or the session closed
// under it; the plugin's own completion, arriving later, then finds a retired handle and is
// ignored (docs/decisions/0026).
#pragma once

#include "plugin/handles.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <coffer/handoff.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace coffer::mcp {

class Link;
struct Exchange;

class Call final : public plugin::CallTarget {
public:
    // result: the raw JSON-RPC result object; error: a raw JSON-RPC error object. One is empty.
    using Done = std::function<void(std::string result, std::string error)>;

    Call(boost::asio::any_io_executor net, coffer::Handoff::Sender to_net, std::weak_ptr<Link> link,
         std::weak_ptr<Exchange> exchange, Done done);
    ~Call() override;
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    // The plugin's side (through the handle table, any thread).
    void complete(std::string_view result, std::string_view error) noexcept override;
    // Completes it with `error_json` unless the plugin already did. Network thread.
    bool abandon(std::string error_json);

    coffer_call* handle() const { return handle_; }
    const std::weak_ptr<Exchange>& exchange() const { return exchange_; }

private:
    static void deliver(Call* call, std::string result, std::string error);

    std::atomic<bool> done_{false};
    boost::asio::any_io_executor net_;
    coffer::Handoff::Sender to_net_;
    std::weak_ptr<Link> link_;
    std::weak_ptr<Exchange> exchange_;
    Done on_done_;
    coffer_call* handle_ = nullptr;
};

}  // namespace coffer::mcp
