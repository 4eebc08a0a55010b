// The session's GET stream over Streamable HTTP: server-initiated messages outside any request
// (notifications, server requests). Opened once the handshake is done, resumed with
// Last-Event-ID after a break, with a growing delay; not used on the local socket or in the
// stateless era.
#include "shim/forwarder.hpp"
#include "shim/http_sinks.hpp"

#include "client/vault.hpp"

#include <algorithm>

namespace coffer::shim {

void GetSink::on_head(const ResponseHead& h) {
    ok = h.status == 200;
    owner->get_head(h, serial);
}

void GetSink::on_data(std::string_view bytes) {
    if (!ok || overflow) return;
    overflow = !parser.feed(bytes, [this](const SseEvent& ev) { owner->get_event(ev, serial); });
}

void Forwarder::open_get() {
    if (get_.handle || get_.disabled || exiting_ || link_ != Link::up || session_.empty() || stateless_mode() ||
        (local_.link && local_.link->ready()))
        return;
    OutgoingRequest req{"GET", "/mcp", {}, {}};
    req.headers.emplace_back("Accept", "text/event-stream");
    req.headers.emplace_back("X-Coffer-Token", daemon_.token);
    req.headers.emplace_back("Mcp-Session-Id", session_);
    if (!protocol_version_.empty()) req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    if (!get_.last_event_id.empty()) req.headers.emplace_back("Last-Event-ID", get_.last_event_id);
    get_.handle = http_.start(std::move(req), std::make_shared<GetSink>(shared_from_this(), ++get_.serial));
}

void Forwarder::stop_get() {
    get_.timer.cancel();
    get_.last_event_id.clear();
    ++get_.serial;
    if (get_.handle) {
        auto h = get_.handle;
        get_.handle = 0;
        http_.abort(h, "session closed");
    }
}

void Forwarder::schedule_get(std::chrono::milliseconds delay) {
    get_.timer.expires_after(delay);
    get_.timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec) self->open_get();
    });
}

void Forwarder::get_head(const ResponseHead& head, std::uint64_t serial) {
    if (serial != get_.serial) return;
    if (head.status == 200) {
        get_.failures = 0;
    } else if (head.status == 405) {
        log_.note("the daemon offers no GET stream (405)");
        get_.disabled = true;
    } else if (head.status == 404) {
        get_.session_gone = true;
    } else if (head.status == 401) {
        if (auto fresh = client::read_daemon_info(vault_); fresh) daemon_.token = fresh->token;
    } else {
        log_.note("GET stream refused: HTTP " + std::to_string(head.status));
    }
}

void Forwarder::get_event(const SseEvent& ev, std::uint64_t serial) {
    if (serial != get_.serial || exiting_) return;
    if (!ev.id.empty()) get_.last_event_id = std::string(ev.id);
    if (ev.type != "message" || ev.data.empty()) return;
    on_server_message(std::string(ev.data), nullptr);
}

void Forwarder::get_done(Failure f, const std::string& what, std::uint64_t serial) {
    if (serial != get_.serial || f == Failure::aborted) return;
    get_.handle = 0;
    if (exiting_ || link_ != Link::up || get_.disabled) return;
    if (get_.session_gone) {
        get_.session_gone = false;
        session_lost(); // re-initialized with the next message
        return;
    }
    if (f != Failure::none && f != Failure::not_sent) {
        connection_trouble();
        if (link_ != Link::up) return;
    }
    if (f == Failure::not_sent) {
        link_lost("cannot reach coffer-daemon: " + what);
        return;
    }
    ++get_.failures;
    auto delay = std::chrono::milliseconds(std::min(5000, 100 << std::min(get_.failures, 6)));
    schedule_get(delay);
}

}  // namespace coffer::shim
