// Reading a POST's complete HTTP answer: a JSON body or SSE stream with the response (resumed
// with GET + Last-Event-ID when the daemon ends the stream before it), a refusal that means the
// message never ran (http_post.cpp sends it again), or an HTTP error turned into the JSON-RPC
// error the client gets.
#include "shim/forwarder.hpp"
#include "shim/http_sinks.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace coffer::shim {
namespace net = boost::asio;
namespace json = boost::json;

namespace {

constexpr int kMaxResumes = 3;

struct RpcError {
    int code = rpc_error::bad_gateway;
    std::string message;
    json::object data;
};

// The daemon's own JSON-RPC error when the body holds one, else one made from the status.
RpcError error_from_http(int status, const std::string& body) {
    RpcError err;
    err.message = "coffer-daemon answered HTTP " + std::to_string(status);
    err.data["http_status"] = status;
    boost::system::error_code ec;
    json::value v = json::parse(body, ec);
    const json::value* e = !ec && v.is_object() ? v.get_object().if_contains("error") : nullptr;
    if (e && e->is_object()) {
        const auto& eo = e->get_object();
        if (auto* c = eo.if_contains("code"); c && c->is_int64()) err.code = static_cast<int>(c->get_int64());
        else if (c && c->is_string()) err.data["coffer_code"] = c->get_string();
        if (auto* msg = eo.if_contains("message"); msg && msg->is_string()) err.message = std::string(msg->get_string());
        if (auto* d = eo.if_contains("data")) err.data["detail"] = *d;
    }
    // What the daemon could not read is the client's request at fault, not the gateway.
    if (err.code == rpc_error::bad_gateway && (status == 400 || status == 413 || status == 415 || status == 406))
        err.code = rpc_error::invalid_request;
    return err;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

// The whole response arrived; false when the exchange is not over here (sent again, or resumed).
bool Forwarder::read_answer(PostEnd& e) {
    if (retry_refused_session(e)) return false;
    int status = e.s.head.status;
    if (status >= 200 && status < 300) return read_success(e);
    read_http_error(e);
    return true;
}

bool Forwarder::read_success(PostEnd& e) {
    PostSink& s = e.s;
    if (!s.sse && !s.body.empty() && !blank(s.body)) {
        on_server_message(std::move(s.body), &s);
    } else if (s.sse && e.is_request && !s.answered && !s.parser.last_event_id().empty() && s.resumes < kMaxResumes &&
               !e.stale && !exiting_) {
        resume_stream(s);
        return false;  // still pending
    }
    if (e.is_request && !s.answered && !e.internal) {
        uncount(e);
        reply_error(s.msg, rpc_error::bad_gateway,
                    s.sse ? "coffer-daemon ended the response stream without a response"
                          : "coffer-daemon answered HTTP " + std::to_string(s.head.status) + " without a response");
    }
    return true;
}

// The daemon closed the stream before the response: resume it (GET + Last-Event-ID), after the
// delay its last `retry:` asked for. The request stays pending.
void Forwarder::resume_stream(PostSink& s) {
    auto next = std::make_shared<PostSink>(shared_from_this(), std::move(s.msg), s.had_session);
    next->resumes = s.resumes + 1;
    next->generation = s.generation;
    OutgoingRequest req{"GET", "/mcp", base_headers(true), {}};
    req.headers.emplace_back("Last-Event-ID", s.parser.last_event_id());
    if (!protocol_version_.empty()) req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    long delay = s.parser.retry_ms().value_or(0);
    auto self = shared_from_this();
    auto t = std::make_shared<net::steady_timer>(io_, std::chrono::milliseconds(delay));
    t->async_wait([self, t, next, req = std::move(req)](boost::system::error_code) mutable {
        next->handle = self->http_.start(std::move(req), next);
        if (!next->msg.id.empty()) self->inflight_[next->msg.id] = {next->handle, next};
    });
}

// An HTTP error. The daemon's own JSON-RPC response is passed on when it sent one; otherwise the
// client gets an error made from the status. (The re-initialization's own failure is
// handshake_done's.)
void Forwarder::read_http_error(PostEnd& e) {
    PostSink& s = e.s;
    Outbound& m = s.msg;
    if (e.internal) return;
    Peek bp = peek(s.body);
    bool unknown_shape = m.kind == MsgKind::invalid || m.kind == MsgKind::batch;
    if ((e.is_request && bp.kind == MsgKind::response && !bp.id.empty()) ||
        (unknown_shape && bp.kind == MsgKind::response)) {
        on_server_message(std::move(s.body), &s);
    } else if (e.is_request || unknown_shape) {
        RpcError err = error_from_http(s.head.status, s.body);
        uncount(e);
        if (e.is_request) reply_error(m, err.code, err.message, std::move(err.data));
        else emit(error_response({}, err.code, err.message, std::move(err.data)));
        s.answered = true;
    } else {
        log_.warn("coffer-daemon refused " + m.what("a message") + ": HTTP " + std::to_string(s.head.status) + " " +
                  s.body.substr(0, 300));
    }
}

}  // namespace coffer::shim
