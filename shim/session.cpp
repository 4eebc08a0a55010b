// The Forwarder's MCP session: passing the daemon's messages to the client (and noting which
// request each answers), what the initialize result says (protocol version, list_changed
// capabilities), the handshake's follow-up over HTTP, and re-opening a lost session with the
// client's original initialize params — lazily, when the next message is to go out.
#include "shim/forwarder.hpp"
#include "shim/http_sinks.hpp"
#include "shim/ids.hpp"

#include <boost/json/parse.hpp>

namespace coffer::shim {
namespace json = boost::json;

namespace {

constexpr int kMaxReinitFailures = 3;

// capabilities.<cap>.listChanged of an initialize result.
bool list_changed(const json::value* caps, const char* cap) {
    if (!caps || !caps->is_object()) return false;
    if (auto* c = caps->get_object().if_contains(cap); c && c->is_object())
        if (auto* lc = c->get_object().if_contains("listChanged"); lc && lc->is_bool()) return lc->get_bool();
    return false;
}

}  // namespace

void Forwarder::on_server_message(std::string text, PostSink* origin) {
    if (exiting_ && !origin) return;
    Peek p = peek(text);
    if (p.kind == MsgKind::response) {
        if (origin && origin->msg.kind == MsgKind::request) {
            if (same_id(p.id, origin->msg.id)) {
                origin->answered = true;
                if (origin->msg.role == Role::client_initialize) capture_initialize_result(text, false);
                if (stateless_ && origin->msg.method == "tools/list") learn_tool_headers(text, tool_headers_);
                if (origin->msg.role == Role::internal_initialize) {
                    capture_initialize_result(text, true);
                    return; // the client never asked for this one
                }
            }
        } else if (!p.id.empty()) {
            mark_answered(p.id);  // a response on the GET stream (a resumed stream)
        }
        count_answer(p.id);
    }
    make_one_line(text);
    emit(std::move(text));
}

// The POST still waiting for the response with this id has its answer.
void Forwarder::mark_answered(std::string_view id) {
    std::string key = canonical_id(id);
    for (auto& [raw, entry] : inflight_) {
        if (raw == id || canonical_id(raw) == key) {
            if (auto sink = entry.second.lock()) sink->answered = true;
            break;
        }
    }
}

bool Forwarder::capture_initialize_result(const std::string& text, bool internal) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_object()) return false;
    const auto* result = v.get_object().if_contains("result");
    if (!result || !result->is_object()) {
        if (!internal) init_params_.reset(); // the client's initialize failed: nothing to repeat
        return false;
    }
    const auto& r = result->get_object();
    if (auto* pv = r.if_contains("protocolVersion"); pv && pv->is_string()) protocol_version_ = std::string(pv->get_string());
    const json::value* caps = r.if_contains("capabilities");
    caps_tools_changed_ = list_changed(caps, "tools");
    caps_resources_changed_ = list_changed(caps, "resources");
    caps_prompts_changed_ = list_changed(caps, "prompts");
    return true;
}

void Forwarder::session_lost() {
    log_.warn("the daemon no longer knows session " + session_ + "; re-initializing");
    ++generation_;
    session_.clear();
    stop_get();
    need_reinit_ = init_params_.has_value();
    gate_ = false;
}

void Forwarder::start_reinit() {
    need_reinit_ = false;
    if (!init_params_) return pump();
    Outbound m;
    m.kind = MsgKind::request;
    m.method = "initialize";
    m.id = "\"coffer-shim-reinit-" + std::to_string(++reinit_counter_) + "\"";
    m.body = R"({"jsonrpc":"2.0","id":)" + m.id + R"(,"method":"initialize","params":)" + *init_params_ + "}";
    m.role = Role::internal_initialize;
    log_.note("re-initializing the session");
    send(std::move(m));
}

void Forwarder::reinit_failed(const std::string& why) {
    ++reinit_failures_;
    log_.warn("re-initializing the session failed: " + why);
    if (reinit_failures_ >= kMaxReinitFailures) {
        reinit_failures_ = 0;
        fail_queue(rpc_error::daemon_unavailable, "coffer-daemon refused to re-open the session: " + why);
    }
    need_reinit_ = true;  // tried again with the next message
}

void Forwarder::after_reinit() {
    reinit_failures_ = 0;
    log_.warn("session re-established (" + (session_.empty() ? std::string("no session id") : session_) + ")");
    open_get();
    // The new daemon or session may offer a different set: let the client re-list.
    if (client_initialized_) {
        if (caps_tools_changed_) emit(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
        if (caps_resources_changed_) emit(R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})");
        if (caps_prompts_changed_) emit(R"({"jsonrpc":"2.0","method":"notifications/prompts/list_changed"})");
    }
    pump();
}

// After a handshake POST over HTTP: the session it opened, the gate opened again, the next step
// of a re-initialization. False when that next step is under way (nothing else to do now).
bool Forwarder::handshake_done(PostEnd& e) {
    const PostSink& s = e.s;
    bool ok = e.f == Failure::none && s.head.status >= 200 && s.head.status < 300;
    std::string why = s.head.status ? "HTTP " + std::to_string(s.head.status) : e.what;
    if (e.stale && s.msg.role != Role::client_initialize) return true;
    switch (s.msg.role) {
    case Role::client_initialize:
        ok = ok && s.answered && init_params_;
        if (!ok) init_params_.reset();
        if (e.stale) return true;
        if (ok) {
            session_ = s.session_header;
            reinit_failures_ = 0;
            log_.note("session " + (session_.empty() ? std::string("(none)") : session_) + ", protocol " +
                      protocol_version_);
        }
        gate_ = false;
        return true;
    case Role::client_initialized:
        gate_ = false;
        if (e.f == Failure::none) open_get();
        return true;
    case Role::internal_initialize:
        if (ok && s.answered && init_params_) return reinit_answered(s.session_header);
        if (e.f != Failure::aborted) {
            gate_ = false;
            reinit_failed(why);
        }
        return true;
    case Role::internal_initialized:
        gate_ = false;
        if (ok) after_reinit();
        else if (e.f != Failure::aborted) reinit_failed(why);
        return true;
    default:
        return true;
    }
}

// Our re-initialize opened a session: repeat notifications/initialized if the client had sent
// it (false: that is under way), else the session is back.
bool Forwarder::reinit_answered(const std::string& session) {
    session_ = session;
    gate_ = false;
    if (!client_initialized_) {
        after_reinit();
        return true;
    }
    Outbound n;
    n.kind = MsgKind::notification;
    n.method = "notifications/initialized";
    n.body = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";
    n.role = Role::internal_initialized;
    send(std::move(n));  // sets the gate again
    return false;
}

}  // namespace coffer::shim
