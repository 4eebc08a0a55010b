#include "mcp/link.hpp"

#include "core/log.hpp"
#include "mcp/jsonrpc.hpp"
#include "plugin/call.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>


namespace coffer::mcp {

namespace json = boost::json;

namespace {

int rpc_code_for(coffer_status st) {
    switch (st) {
        case COFFER_E_INVALID:
        case COFFER_E_NOT_FOUND: return rpc::code::invalid_params;
        case COFFER_E_UNSUPPORTED: return rpc::code::method_not_found;
        default: return rpc::code::internal_error;
    }
}

std::string error_object(int code, const std::string& message, const std::string& server) {
    return json::serialize(json::object{{"code", code}, {"message", message}, {"data", json::object{{"server", server}}}});
}

// Runs a provider function (the plugin's lock is held by the gate): false when the plugin is not
// loaded or the function threw through the C boundary (contained and recorded on the plugin).
template <typename F> bool guarded(plugin::Plugin& p, const char* hook, F&& fn) {
    if (p.status != plugin::Status::loaded) return false;
    try {
        fn();
        return true;
    } catch (const std::exception& e) {
        core::log::error("plugin hook threw", {{"plugin", p.name}, {"hook", hook}, {"what", e.what()}});
        p.error = std::string("threw from ") + hook + ": " + e.what();
    } catch (...) {
        core::log::error("plugin hook threw", {{"plugin", p.name}, {"hook", hook}});
        p.error = std::string("threw from ") + hook;
    }
    return false;
}

}  // namespace

// What the provider's coffer_session handle reaches while the link lives. The handle is retired
// when the link closes (and at the latest when this object goes), so a plugin thread that uses it
// late gets COFFER_E_NOT_FOUND instead of reaching freed memory.
class Link::Handle final : public plugin::SessionTarget {
public:
    Handle(boost::asio::any_io_executor net, coffer::Handoff::Sender to_net, std::weak_ptr<Link> link)
        : net_(std::move(net)), to_net_(std::move(to_net)), link_(std::move(link)),
          handle_(plugin::register_session(this)) {}
    ~Handle() override { retire(); }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    coffer_session* handle() const { return handle_; }
    void retire() { plugin::retire(handle_); }

    coffer_status notify(coffer_call* related, std::string_view json_text) noexcept override {
        try {
            to_net([l = link_, r = reinterpret_cast<std::uintptr_t>(related), t = std::string(json_text)]() mutable {
                if (auto link = l.lock()) link->on_notify(r, std::move(t));
            });
            return COFFER_OK;
        } catch (...) {
            return COFFER_E_INTERNAL;
        }
    }
    coffer_status request(coffer_call* related, std::uint64_t token, std::string_view json_text) noexcept override {
        try {
            to_net([l = link_, r = reinterpret_cast<std::uintptr_t>(related), token, t = std::string(json_text)]() mutable {
                if (auto link = l.lock()) link->on_request(r, token, std::move(t));
            });
            return COFFER_OK;
        } catch (...) {
            return COFFER_E_INTERNAL;
        }
    }

private:
    // Same route as the calls' completions, so a progress notification never overtakes the
    // result it belongs to.
    template <typename F> void to_net(F&& fn) {
        if (to_net_ && !to_net_.on_target_thread()) to_net_.post(std::forward<F>(fn));
        else boost::asio::post(net_, std::forward<F>(fn));
    }

    boost::asio::any_io_executor net_;
    coffer::Handoff::Sender to_net_;
    std::weak_ptr<Link> link_;
    coffer_session* handle_ = nullptr;
};

Link::Link(const resource::Provider& p, boost::asio::any_io_executor net, std::weak_ptr<LinkEvents> events,
           std::shared_ptr<PluginGate> gate, coffer::Handoff::Sender to_net)
    : uid_(p.uid), server_(p.name), fns_(p.fns), net_(std::move(net)), to_net_(std::move(to_net)),
      events_(std::move(events)), gate_(std::move(gate)) {}

Link::~Link() { close("link released"); }

std::shared_ptr<Link> Link::open(const resource::Provider& p, const std::string& session_json,
                                 boost::asio::any_io_executor net, std::weak_ptr<LinkEvents> events,
                                 std::shared_ptr<PluginGate> gate, coffer::Handoff::Sender to_net) {
    std::shared_ptr<Link> link(new Link(p, std::move(net), std::move(events), std::move(gate), std::move(to_net)));
    link->handle_ = std::make_unique<Handle>(link->net_, link->to_net_, link);
    auto* instance = p.instance;
    link->gate_->run([w = std::weak_ptr<Link>(link), instance, session_json] {
        auto l = w.lock();
        if (!l || l->state_ != State::opening) return;  // closed before it could open: nothing to do
        coffer_reply reply;
        coffer_status st = COFFER_E_INTERNAL;
        auto& plugin = l->gate_->plugin();
        bool ran = guarded(plugin, "mcp open", [&] {
            st = l->fns_.open(instance, l->handle_->handle(), plugin::cstr(session_json), &l->provider_state_, &reply);
        });
        if (ran && st == COFFER_OK && !reply.has_error) {
            l->state_ = State::open;
            return;
        }
        l->state_ = State::failed;
        l->open_error_ = !reply.message.empty() ? reply.message
                         : ran                  ? "the provider refused to open a session"
                                                : "plugin '" + plugin.name + "' is not available";
        core::log::warn("mcp provider refused a session", {{"server", l->server_}, {"error", l->open_error_}});
    });
    return link;
}

std::string Link::unavailable() const {
    if (state_ == State::failed)
        return error_object(rpc::code::internal_error, "Server '" + server_ + "' is unavailable: " + open_error_, server_);
    return error_object(rpc::code::internal_error, "the session with server '" + server_ + "' is closed", server_);
}

coffer_call* Link::request(std::string_view method, const std::string& params_json, std::weak_ptr<Exchange> exchange,
                           Call::Done done) {
    auto* call = new Call(net_, to_net_, weak_from_this(), std::move(exchange), std::move(done));
    auto* handle = call->handle();
    outstanding_.emplace(handle, call);
    if (state_ == State::failed || state_ == State::closed) {
        call->abandon(unavailable());
        return handle;
    }
    gate_->run([w = weak_from_this(), handle, method = std::string(method), params_json] {
        auto l = w.lock();
        if (!l) return;  // closed and gone: close() completed the call
        auto* call = l->pending(handle);
        if (!call) return;  // completed meanwhile (the link closed under it): nothing to start
        if (l->state_ != State::open) {
            call->abandon(l->unavailable());
            return;
        }
        coffer_reply reply;
        coffer_status st = COFFER_E_UNAVAILABLE;
        auto& plugin = l->gate_->plugin();
        bool ran = guarded(plugin, "mcp request", [&] {
            st = l->fns_.request(l->provider_state_, handle, plugin::cstr(method), plugin::cstr(params_json), &reply);
        });
        if (ran && st == COFFER_OK) return;
        std::string message = !reply.message.empty() ? reply.message
                              : ran                 ? "server '" + l->server_ + "' refused the request"
                                                    : "server '" + l->server_ + "' failed (plugin error)";
        call->abandon(error_object(rpc_code_for(ran ? st : COFFER_E_INTERNAL), message, l->server_));
    });
    return handle;
}

void Link::cancel(coffer_call* call) {
    if (state_ == State::closed || state_ == State::failed || !fns_.cancel || !outstanding_.count(call)) return;
    gate_->run([w = weak_from_this(), call] {
        auto l = w.lock();
        if (!l || l->state_ != State::open || !l->outstanding_.count(call)) return;
        guarded(l->gate_->plugin(), "mcp cancel", [&] { l->fns_.cancel(l->provider_state_, call); });
    });
}

void Link::respond(std::uint64_t token, std::string_view result_json, std::string_view error_json) {
    if (state_ == State::closed || state_ == State::failed || !fns_.respond) return;
    gate_->run([w = weak_from_this(), token, r = std::string(result_json), e = std::string(error_json)] {
        auto l = w.lock();
        if (!l || l->state_ != State::open) return;
        guarded(l->gate_->plugin(), "mcp respond",
                [&] { l->fns_.respond(l->provider_state_, token, plugin::cstr(r), plugin::cstr(e)); });
    });
}

void Link::notify(std::string_view method, const std::string& params_json) {
    if (state_ == State::closed || state_ == State::failed || !fns_.notify) return;
    gate_->run([w = weak_from_this(), m = std::string(method), params_json] {
        auto l = w.lock();
        if (!l || l->state_ != State::open) return;
        guarded(l->gate_->plugin(), "mcp notify",
                [&] { l->fns_.notify(l->provider_state_, plugin::cstr(m), plugin::cstr(params_json)); });
    });
}

void Link::close(std::string_view reason) {
    if (state_ == State::closed) return;
    bool was_open = state_ == State::open;
    state_ = State::closed;
    // From here on the provider's session handle reaches nothing: what its threads still send
    // is refused (COFFER_E_NOT_FOUND), and the calls abandoned below ignore late completions.
    // The provider's close may run later (plugin busy): it must not need this object.
    handle_.reset();
    if (was_open) {
        gate_->run([close = fns_.close, state = provider_state_, gate = std::weak_ptr<PluginGate>(gate_)] {
            if (auto g = gate.lock()) guarded(g->plugin(), "mcp close", [&] { close(state); });
        });
    }
    auto pending = std::move(outstanding_);
    outstanding_.clear();
    auto err = error_object(rpc::code::internal_error,
                            "the session with server '" + server_ + "' ended: " + std::string(reason), server_);
    for (auto& [h, call] : pending) call->abandon(err);
}

Call* Link::find(std::uintptr_t related) const {
    return related ? pending(reinterpret_cast<coffer_call*>(related)) : nullptr;
}

Call* Link::pending(coffer_call* handle) const {
    auto it = outstanding_.find(handle);
    return it == outstanding_.end() ? nullptr : it->second;
}

void Link::on_notify(std::uintptr_t related, std::string json_text) {
    if (state_ == State::closed) return;
    try {
        if (auto events = events_.lock()) events->link_notification(*this, find(related), std::move(json_text));
    } catch (const std::exception& e) {
        core::log::error("mcp notification relay failed", {{"server", server_}, {"what", e.what()}});
    }
}

void Link::on_request(std::uintptr_t related, std::uint64_t token, std::string json_text) {
    if (state_ == State::closed) return;
    try {
        if (auto events = events_.lock()) events->link_request(*this, find(related), token, std::move(json_text));
    } catch (const std::exception& e) {
        core::log::error("mcp server request relay failed", {{"server", server_}, {"what", e.what()}});
        respond(token, {}, error_object(rpc::code::internal_error, "the gateway could not relay the request", server_));
    }
}

}  // namespace coffer::mcp
