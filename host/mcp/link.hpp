// A link: one downstream session using one provider instance (ABI 1.2 open/request/cancel/respond/
// close, ABI 1.4 notify). Lives on the network thread; every call into the plugin goes through the
// plugin's gate (its lock, in order, never waited for) and contains exceptions. Provider callbacks
// (session_notify, session_request) arrive on any thread and are posted back here through the
// link's coffer_session handle (a number from plugin/handles.hpp, retired when the link closes).
// Calls are named by their handles too: a handle stays a valid key after its call is gone.
#pragma once

#include "mcp/call.hpp"
#include "mcp/gate.hpp"
#include "plugin/handles.hpp"
#include "resource/providers.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace coffer::mcp {

class Link;

// The session side of a link's provider callbacks (network thread).
class LinkEvents {
public:
    virtual ~LinkEvents() = default;
    // A notification from the provider; `related` is the call it belongs to, or null.
    virtual void link_notification(Link& link, Call* related, std::string json) = 0;
    // A server-initiated request; the client's answer goes back through Link::respond(token).
    virtual void link_request(Link& link, Call* related, std::uint64_t token, std::string json) = 0;
};

class Link : public std::enable_shared_from_this<Link> {
public:
    // Opens the provider session (at once, or as soon as the plugin is free). Calls made before
    // that wait for it; if the provider refuses, they complete with its reason.
    // `to_net` hands provider callbacks (completions, notifications, requests) to the network
    // thread in order; without one they are posted to `net`.
    static std::shared_ptr<Link> open(const resource::Provider& provider, const std::string& session_json,
                                      boost::asio::any_io_executor net, std::weak_ptr<LinkEvents> events,
                                      std::shared_ptr<PluginGate> gate, coffer::Handoff::Sender to_net = {});
    ~Link();
    Link(const Link&) = delete;
    Link& operator=(const Link&) = delete;

    const std::string& uid() const { return uid_; }
    const std::string& server() const { return server_; }
    bool closed() const { return state_ == State::closed; }
    bool failed() const { return state_ == State::failed; }
    const std::string& open_error() const { return open_error_; }

    // Starts a request. Never fails synchronously: a refusal completes the call with an error.
    // Returns the call's handle, the key for cancel() (harmless once the call is over).
    coffer_call* request(std::string_view method, const std::string& params_json, std::weak_ptr<Exchange> exchange,
                         Call::Done done);
    void cancel(coffer_call* call);
    void respond(std::uint64_t token, std::string_view result_json, std::string_view error_json);
    // A client notification for the provider (ABI 1.4 `notify`), in order with the requests.
    // Nothing happens when the provider has no notify hook (built against 1.3 or older) or the
    // link is failed or closed.
    void notify(std::string_view method, const std::string& params_json);
    // Provider close; every outstanding call completes with an error. Idempotent.
    void close(std::string_view reason);

    // Network thread.
    void forget(coffer_call* call) { outstanding_.erase(call); }
    std::size_t outstanding() const { return outstanding_.size(); }

    // The catalog's per-session, per-provider list cache (G-8): items are {sort key, raw JSON}.
    struct CachedList {
        std::vector<std::pair<std::string, std::string>> items;
        std::chrono::steady_clock::time_point at;
        std::string instructions;  // tools/list: the server's instructions (coffer/mcp_instructions.hpp)
    };
    std::map<std::string, CachedList>& lists() { return lists_; }
    // The raw item named `exposed` in the cached list of `method`, if this session listed it.
    const std::string* listed(const std::string& method, std::string_view exposed) const {
        auto it = lists_.find(method);
        if (it == lists_.end()) return nullptr;
        for (auto& [key, raw_item] : it->second.items)
            if (key == exposed) return &raw_item;
        return nullptr;
    }

private:
    class Handle;
    enum class State { opening, open, failed, closed };
    Link(const resource::Provider& p, boost::asio::any_io_executor net, std::weak_ptr<LinkEvents> events,
         std::shared_ptr<PluginGate> gate, coffer::Handoff::Sender to_net);
    void on_notify(std::uintptr_t related, std::string json);
    void on_request(std::uintptr_t related, std::uint64_t token, std::string json);
    Call* find(std::uintptr_t related) const;
    Call* pending(coffer_call* handle) const;  // null once the call is over
    std::string unavailable() const;  // the error for a call that cannot be made

    std::string uid_, server_;
    coffer_mcp_provider fns_;
    boost::asio::any_io_executor net_;
    coffer::Handoff::Sender to_net_;
    std::weak_ptr<LinkEvents> events_;
    std::shared_ptr<PluginGate> gate_;
    std::unique_ptr<Handle> handle_;
    void* provider_state_ = nullptr;
    State state_ = State::opening;
    std::string open_error_;
    std::unordered_map<const coffer_call*, Call*> outstanding_;  // keyed by the handle the plugin holds
    std::map<std::string, CachedList> lists_;
};

}  // namespace coffer::mcp
