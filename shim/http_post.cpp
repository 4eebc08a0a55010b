// The Forwarder over Streamable HTTP: each message is one POST to /mcp, and when the exchange
// ends its failure kind answers "may the daemon have run it?" (http.hpp): what it cannot have
// seen is sent again once the daemon is back, what it may have seen gets a JSON-RPC error.
// Reading a complete answer is http_answer.cpp.
#include "shim/forwarder.hpp"
#include "shim/http_sinks.hpp"

#include "client/process.hpp"
#include "client/vault.hpp"

namespace coffer::shim {

namespace {

bool starts_with_ci(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
            return false;
    return true;
}

std::string trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t");
    return std::string(s.substr(b, e - b + 1));
}

}  // namespace

PostSink::PostSink(std::shared_ptr<Forwarder> owner, Outbound m, bool had_session)
    : owner(std::move(owner)), msg(std::move(m)), had_session(had_session), generation(this->owner->generation()) {}

void PostSink::on_head(const ResponseHead& h) {
    head = h;
    auto ct = h.header("Content-Type").value_or("");
    sse = h.status >= 200 && h.status < 300 && starts_with_ci(trim(ct), "text/event-stream");
    if (auto sid = h.header("Mcp-Session-Id")) session_header = std::string(*sid);
}

void PostSink::on_data(std::string_view bytes) {
    if (!sse) {
        body.append(bytes);
        return;
    }
    if (overflow) return;  // an event over the limit: the rest of this stream is dropped
    overflow = !parser.feed(bytes, [this](const SseEvent& ev) {
        if (ev.type != "message" || ev.data.empty()) return;
        if (generation != owner->generation()) return;
        owner->on_server_message(std::string(ev.data), this);
    });
}

// ---------------------------------------------------------------------------------------------
// Sending

HeaderList Forwarder::base_headers(bool with_session) const {
    HeaderList h;
    h.reserve(8);
    h.emplace_back("Content-Type", "application/json");
    h.emplace_back("Accept", "application/json, text/event-stream");
    h.emplace_back("X-Coffer-Token", daemon_.token);
    if (with_session && !session_.empty()) h.emplace_back("Mcp-Session-Id", session_);
    return h;
}

OutgoingRequest Forwarder::post_request(const Outbound& m, bool with_session) const {
    OutgoingRequest req;
    req.headers = base_headers(with_session);
    bool has_version_header = false;
    for (auto& h : m.extra) {
        if (h.first == "MCP-Protocol-Version") has_version_header = true;
        req.headers.push_back(h);
    }
    if (!has_version_header && with_session && !protocol_version_.empty())
        req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    if (!m.method.empty()) req.headers.emplace_back("Mcp-Method", header_safe_value(m.method));
    req.body = m.body;
    return req;
}

// The client's initialize opens a new session: a second one on one stdio connection ends the
// old session first.
void Forwarder::begin_client_initialize() {
    if (!session_.empty()) {
        OutgoingRequest del{"DELETE", "/mcp", base_headers(true), {}};
        http_.start(std::move(del), std::make_shared<PostSink>(shared_from_this(), Outbound{}, true));
    }
    stop_get();
    session_.clear();
    need_reinit_ = false;
    gate_ = true;
}

void Forwarder::send_http(Outbound m) {
    bool internal = m.internal();
    if (m.role == Role::client_initialize) begin_client_initialize();
    if (m.role == Role::client_initialized || internal) gate_ = true;

    bool with_session = m.role != Role::client_initialize && m.role != Role::internal_initialize;
    OutgoingRequest req = post_request(m, with_session);
    if (m.kind == MsgKind::request && !internal) {
        ++pending_requests_;
        arm_watchdog();
    }
    bool had_session = with_session && !session_.empty();
    bool track = m.kind == MsgKind::request && !internal;
    auto sink = std::make_shared<PostSink>(shared_from_this(), std::move(m), had_session);
    sink->handle = http_.start(std::move(req), sink);
    if (track) inflight_[sink->msg.id] = {sink->handle, sink};
}

// ---------------------------------------------------------------------------------------------
// The exchange ended

void Forwarder::post_done(PostSink& s, Failure f, const std::string& what) {
    Outbound& m = s.msg;
    bool is_request = m.kind == MsgKind::request;
    if (is_request) {
        auto it = inflight_.find(m.id);
        if (it != inflight_.end() && it->second.first == s.handle) inflight_.erase(it);
    }
    if (m.role == Role::delete_session) return exit_now(0);
    PostEnd e{s, f, what, is_request, m.internal(), s.generation != generation_, is_request && !m.internal()};
    if (s.cancelled) {  // the client cancelled it and expects no answer
        uncount(e);
        return pump();
    }
    if (m.kind == MsgKind::invalid && m.body.empty()) return;  // a fire-and-forget DELETE
    if (refused_by_live_daemon(e)) return;
    if (e.f == Failure::not_sent && !exiting_) return requeue_unsent(e);
    if (e.f == Failure::none) {
        if (!read_answer(e)) return;  // sent again, or still pending
    } else if (e.f == Failure::interrupted || e.f == Failure::aborted) {
        answer_broken(e);
    }
    uncount(e);
    if (!handshake_done(e)) return;  // the handshake goes on
    pump();
}

void Forwarder::uncount(PostEnd& e) {
    if (!e.counted) return;
    e.counted = false;
    --pending_requests_;
}

// A write that failed: the daemon did not take the request. A live daemon closed the connection
// on purpose (sending it again would not help: answered here, true); a dead one is replaced and
// the request sent again (it cannot have run), as one never sent.
bool Forwarder::refused_by_live_daemon(PostEnd& e) {
    if (e.f != Failure::refused || exiting_) return false;
    if (e.stale || !client::process_alive(daemon_.pid)) {
        e.f = Failure::not_sent;
        return false;
    }
    Outbound& m = e.s.msg;
    uncount(e);
    reply_error(m, rpc_error::bad_gateway, "coffer-daemon closed the connection before taking the request (" + e.what + ")");
    if (m.handshake()) gate_ = false;
    if (e.internal) reinit_failed(e.what);
    pump();
    return true;
}

// The request never reached the daemon: send it again once the daemon is back.
void Forwarder::requeue_unsent(PostEnd& e) {
    Outbound& m = e.s.msg;
    uncount(e);
    log_.note("could not send " + m.what("a message") + " (" + e.what + "); queued until the daemon is back");
    send_again(std::move(m), e.internal);
    if (!e.stale) link_lost("cannot reach coffer-daemon on port " + std::to_string(http_.port()) + ": " + e.what);
    else pump();
}

// The daemon refused the message without running it, so it is sent again (true): an expired
// session (404: the daemon's idle timeout, or it restarted), or a token rotated meanwhile (401:
// daemon.json is read again, and the message retried once).
bool Forwarder::retry_refused_session(PostEnd& e) {
    Outbound& m = e.s.msg;
    int status = e.s.head.status;
    if (exiting_) return false;
    if (status == 404 && e.s.had_session && !e.internal && m.session_retries < 2) {
        uncount(e);
        ++m.session_retries;
        if (m.role == Role::client_initialized) gate_ = false;
        queue_.push_front(std::move(m));
        if (!e.stale) session_lost();
        pump();
        return true;
    }
    if (status != 401 || m.auth_retried) return false;
    auto fresh = client::read_daemon_info(vault_);
    if (!fresh || fresh->token == daemon_.token) return false;
    uncount(e);
    daemon_.token = fresh->token;
    m.auth_retried = true;
    send_again(std::move(m), e.internal);
    pump();
    return true;
}

// The request was written but its answer broke off: the daemon may have run it, so it is
// answered with an error, never sent again; and nothing more is sent until the daemon is known
// to be alive (liveness.cpp).
void Forwarder::answer_broken(PostEnd& e) {
    PostSink& s = e.s;
    if (e.is_request && !s.answered && !e.internal && !s.cancelled) {
        uncount(e);
        reply_error(s.msg, rpc_error::connection_lost,
                    "coffer-daemon connection lost while this request was pending (" + e.what +
                        "); it may or may not have run, and is not retried");
    }
    if (e.f == Failure::interrupted && !e.stale && !exiting_) connection_trouble();
}

}  // namespace coffer::shim
