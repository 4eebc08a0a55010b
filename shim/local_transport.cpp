// The Forwarder over the daemon's local socket (ADR 0019): one connection is one session; order
// on the stream replaces the HTTP path's handshake gate, and the connection ending tells what
// HTTP needs a watchdog and probes for. Requests written to it wait in local_.inflight for
// their answers.
#include "shim/forwarder.hpp"
#include "shim/ids.hpp"

#include "client/vault.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>

namespace coffer::shim {
namespace net = boost::asio;
namespace json = boost::json;

bool Forwarder::wants_local() const {
    if (opts_.transport == Options::Transport::http || stateless_) return false;
    return opts_.transport == Options::Transport::local || !daemon_.mcp_socket.empty();
}

void Forwarder::open_local() {
    link_ = Link::locating;
    local_.link = std::make_unique<LocalLink>(
        io_, daemon_.mcp_socket, daemon_.token, opts_.max_message,
        LocalLink::Handlers{[this] { local_ready(); }, [this](std::string text) { local_message(std::move(text)); },
                            [this](LocalLink::Refusal r, const std::string& why) { local_closed(r, why); }});
    local_.link->start();
}

void Forwarder::local_ready() {
    log_.note("using the daemon's local socket " + daemon_.mcp_socket);
    link_ = Link::up;
    local_.auth_retried = false;
    // A new connection is a new session: open it again for the client, unless the client's own
    // initialize is still waiting to go out.
    bool client_init_queued = std::any_of(queue_.begin(), queue_.end(),
                                          [](const Outbound& m) { return m.role == Role::client_initialize; });
    need_reinit_ = init_params_.has_value() && !client_init_queued;
    pump();
}

void Forwarder::send_local(Outbound m) {
    if (m.role == Role::internal_initialize) {
        gate_ = true;  // nothing else goes out until we know the session is back
        local_.reinit_id = m.id;
        return local_.link->send(std::move(m.body));
    }
    if (refuse_locally(m)) return;
    if (m.kind == MsgKind::notification && m.method == "notifications/cancelled") {
        // No answer will come for a cancelled request (the daemon drops it): stop waiting for one.
        if (auto rid = cancelled_request_id(m.body))
            if (auto it = find_local(*rid); it != local_.inflight.end()) {
                local_.inflight.erase(it);
                --pending_requests_;
            }
    }
    if (m.role == Role::client_initialize) need_reinit_ = false;  // the daemon opens a fresh session for it
    std::string body = std::move(m.body);
    if (m.kind == MsgKind::request) {
        ++pending_requests_;
        arm_watchdog();
        m.body.clear();
        local_.inflight[m.id] = std::move(m);
    }
    local_.link->send(std::move(body));
}

// What the daemon would drop unread, or answer with id null (which matches no request here), is
// refused here instead, with the request's own id; true when so.
bool Forwarder::refuse_locally(const Outbound& m) {
    if (auto limit = local_.link->max_message(); limit && m.body.size() > limit) {
        reply_error(m, rpc_error::invalid_request,
                    "Invalid Request: message too large (" + std::to_string(m.body.size()) +
                        " bytes; coffer-daemon takes at most " + std::to_string(limit) + ")");
        return true;
    }
    if (m.kind != MsgKind::request) return false;
    // The daemon's checks: JSON syntax, UTF-8, nesting depth 64.
    unsigned char scratch[8192];
    json::monotonic_resource mr(scratch, sizeof scratch);
    json::parse_options opt;
    opt.max_depth = 64;
    boost::system::error_code ec;
    json::parse(m.body, ec, &mr, opt);
    if (ec) {
        reply_error(m, jsonrpc::code::parse_error, "Parse error: " + ec.message());
        return true;
    }
    if (local_.inflight.count(m.id)) {
        reply_error(m, rpc_error::invalid_request, "Invalid Request: a request with this id is already in progress");
        return true;
    }
    return false;
}

std::unordered_map<std::string, Outbound>::iterator Forwarder::find_local(std::string_view raw_id) {
    if (auto it = local_.inflight.find(std::string(raw_id)); it != local_.inflight.end()) return it;
    auto key = canonical_id(raw_id);
    return std::find_if(local_.inflight.begin(), local_.inflight.end(),
                        [&](const auto& e) { return canonical_id(e.first) == key; });
}

void Forwarder::local_message(std::string text) {
    Peek p = peek(text);
    if (p.kind == MsgKind::response && !p.id.empty()) {
        if (local_reinit_answered(p.id, text)) return;  // the client never asked for this one
        if (auto it = find_local(p.id); it != local_.inflight.end()) {
            if (it->second.role == Role::client_initialize) capture_initialize_result(text, false);
            local_.inflight.erase(it);
            --pending_requests_;
        }
        count_answer(p.id);
    }
    make_one_line(text);
    emit(std::move(text));
    maybe_finish();
}

// The answer to our own re-initialize (true): the session is back, or it failed again.
bool Forwarder::local_reinit_answered(std::string_view id, const std::string& text) {
    if (local_.reinit_id.empty() || !same_id(id, local_.reinit_id)) return false;
    local_.reinit_id.clear();
    gate_ = false;
    if (capture_initialize_result(text, true)) {
        if (client_initialized_ && local_.link)
            local_.link->send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        after_reinit();
    } else {
        reinit_failed("the daemon answered the re-initialize with an error");
        pump();
    }
    return true;
}

void Forwarder::local_closed(LocalLink::Refusal refusal, const std::string& why) {
    if (exiting_) return;
    if (link_ != Link::locating) return link_lost(why);  // answers what was in flight there (drop_local)
    // It never came up.
    net::post(io_, [l = std::shared_ptr<LocalLink>(std::move(local_.link))] {});
    if (refusal == LocalLink::Refusal::unauthorized && !local_.auth_retried) {
        // The token may have been rotated since daemon.json was read.
        if (auto fresh = client::read_daemon_info(vault_); fresh && fresh->token != daemon_.token) {
            local_.auth_retried = true;
            daemon_.token = fresh->token;
            return open_local();
        }
    }
    if (opts_.transport == Options::Transport::local) {
        log_.warn("cannot use the daemon's local socket: " + why);
        locate_failed(why);
        fail_queue(rpc_error::daemon_unavailable, "cannot use coffer-daemon's local socket: " + why);
        return maybe_finish();
    }
    log_.note("local socket unusable (" + why + "); using HTTP on port " + std::to_string(daemon_.port));
    link_ = Link::up;
    pump();
}

void Forwarder::drop_local(const std::string& why) {
    local_.reinit_id.clear();
    if (local_.link) {
        local_.link->close();
        net::post(io_, [l = std::shared_ptr<LocalLink>(std::move(local_.link))] {});  // we may be in its callback
    }
    auto inflight = std::move(local_.inflight);
    local_.inflight.clear();
    for (auto& [id, m] : inflight) {
        --pending_requests_;
        if (m.role == Role::client_initialize) init_params_.reset();  // it failed: nothing to repeat
        reply_error(m, rpc_error::connection_lost,
                    "coffer-daemon connection lost while this request was pending (" + why +
                        "); it may or may not have run, and is not retried");
    }
}

}  // namespace coffer::shim
