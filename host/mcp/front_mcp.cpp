// Gateway: Streamable HTTP at /mcp — POST (JSON-RPC in; JSON or an event stream out), GET (the
// session's server→client stream), DELETE (end the session), Mcp-Session-Id and
// MCP-Protocol-Version handling; 2026-07-28 requests are served statelessly.
#include "mcp/gateway.hpp"
#include "mcp/modern.hpp"
#include "mcp/reply.hpp"

#include <boost/json.hpp>

#include <optional>

namespace coffer::mcp {

namespace json = boost::json;

namespace {
std::string supported_list() {
    std::string out;
    for (auto v : supported_versions()) out += (out.empty() ? "" : ", ") + std::string(v);
    return out;
}
}  // namespace

void Gateway::post_mcp(http::Request& req, http::Respond respond) {
    if (!json_body(req))
        return respond(rpc_http(415, nullptr, rpc::code::server_error,
                                "Unsupported Media Type: Content-Type must be application/json"));
    bool can_stream = accepts(req, "text/event-stream");
    if (!can_stream && !accepts(req, "application/json"))
        return respond(rpc_http(406, nullptr, rpc::code::server_error,
                                "Not Acceptable: the client must accept application/json or text/event-stream"));
    auto parsed = rpc::parse(req.body);
    if (parsed.error) return respond(rpc_http(400, parsed.error->id, parsed.error->code, parsed.error->message));
    auto* sid = req.header("mcp-session-id");
    auto* hv = req.header("mcp-protocol-version");

    if (parsed.batch) {
        auto s = sid ? find(*sid, Transport::streamable) : nullptr;
        if (sid && !s) return respond(rpc_http(404, nullptr, rpc::code::session_not_found, "Session not found"));
        if (!s || !allows_batch(s->version()))
            return respond(rpc_http(400, nullptr, rpc::code::invalid_request,
                                    std::string("Invalid Request: JSON-RPC batches are not part of MCP ") +
                                        (s ? std::string(to_string(s->version())) : "without a 2025-03-26 session") +
                                        "; send one message per request"));
        RequestContext ctx{s->version(), -1, {}, req.peer, {}};
        s->handle_batch(std::move(parsed.entries),
                        [respond, id = s->id()](std::string body, int status) {
                            http::Response r;
                            r.status = status;
                            r.body = std::move(body);
                            r.headers.emplace_back("Mcp-Session-Id", id);
                            respond(std::move(r));
                        },
                        ctx);
        return;
    }
    auto& entry = parsed.entries.front();
    if (entry.error) return respond(rpc_http(400, entry.error->id, entry.error->code, entry.error->message));
    auto& m = *entry.message;
    // W3C trace context as an HTTP header: the same as params._meta.traceparent, which wins.
    if (auto* tp = req.header("traceparent"); tp && m.kind == rpc::Kind::request)
        if (auto* p = m.params.if_object(); p && (!p->contains("_meta") || p->at("_meta").is_object())) {
            auto& meta = (*p)["_meta"];
            if (!meta.is_object()) meta = json::object{};
            if (!meta.as_object().contains("traceparent")) meta.as_object()["traceparent"] = *tp;
        }

    if (m.kind == rpc::Kind::request && m.method == "initialize" && !modern::is_modern_request(req, m)) {
        if (sid && find(*sid, Transport::streamable))
            return respond(rpc_http(400, m.id, rpc::code::invalid_request,
                                    "Invalid Request: this session is already initialized"));
        auto admitted = open_session(Door::http, req.connection, Transport::streamable, kLatestLegacy, {});
        if (!admitted.session) return respond(refusal_http(admitted.refusal, m.id));
        auto& s = admitted.session;
        auto reply = std::make_shared<HttpReply>(std::move(respond), can_stream,
                                                 HttpReply::Headers{{"Mcp-Session-Id", s->id()}}, s->resumption());
        s->handle(std::move(m), reply, RequestContext{kLatestLegacy, -1, {}, req.peer, {}});
        return;
    }
    if (sid) {
        auto s = find(*sid, Transport::streamable);
        if (!s)
            return respond(rpc_http(404, m.id, rpc::code::session_not_found,
                                    "Session not found (it ended or expired); initialize a new one"));
        if (hv && !parse_version(*hv))
            return respond(rpc_http(400, m.id, rpc::code::server_error,
                                    "Bad Request: unsupported MCP-Protocol-Version '" + *hv + "' (supported: " +
                                        supported_list() + ")"));
        return dispatch(s, m, req, std::move(respond), can_stream);
    }
    if (modern::is_modern_request(req, m)) return post_modern(req, m, std::move(respond), can_stream);
    if (hv && !parse_version(*hv))
        return respond(rpc_http(400, m.id, rpc::code::server_error,
                                "Bad Request: unsupported MCP-Protocol-Version '" + *hv + "' (supported: " +
                                    supported_list() + ")"));
    respond(rpc_http(400, m.id, rpc::code::server_error,
                     "Bad Request: Mcp-Session-Id header is required (send initialize first, or use protocol version "
                     "2026-07-28 statelessly)"));
}

void Gateway::dispatch(const std::shared_ptr<Session>& s, rpc::Message& m, http::Request& req, http::Respond respond,
                       bool can_stream) {
    RequestContext ctx{s->version(), -1, {}, req.peer, {}};
    if (m.kind != rpc::Kind::request) {
        s->handle(std::move(m), nullptr, ctx);
        http::Response r;
        r.status = 202;
        r.content_type = "text/plain";
        return respond(std::move(r));
    }
    auto reply = std::make_shared<HttpReply>(std::move(respond), can_stream,
                                             HttpReply::Headers{{"Mcp-Session-Id", s->id()}}, s->resumption());
    s->handle(std::move(m), reply, ctx);
}

void Gateway::post_modern(http::Request& req, rpc::Message& m, http::Respond respond, bool can_stream) {
    auto checked = modern::check(req, m);
    if (auto* refusal = std::get_if<modern::Refusal>(&checked))
        return respond(rpc_http(refusal->http_status, m.id, refusal->code, refusal->message, refusal->data));
    auto& meta = std::get<modern::Meta>(checked);
    if (m.kind == rpc::Kind::notification) {  // none is defined for HTTP in 2026-07-28; accepted and ignored
        http::Response r;
        r.status = 202;
        r.content_type = "text/plain";
        return respond(std::move(r));
    }
    // Stateless requests of one identity (agent, cwd) share a gateway session, so providers and
    // their upstreams are reused across requests; it ends after the idle timeout.
    std::string key = meta.agent + '\x1f' + meta.cwd;
    std::shared_ptr<Session> s;
    if (auto it = stateless_.find(key); it != stateless_.end()) s = find(it->second, Transport::stateless);
    if (!s) {
        auto admitted = open_session(Door::http, req.connection, Transport::stateless, meta.version,
                                     Identity{meta.agent, meta.cwd, meta.client_info, meta.capabilities, {}});
        if (!admitted.session) return respond(refusal_http(admitted.refusal, m.id));
        s = std::move(admitted.session);
        stateless_[key] = s->id();
    }
    RequestContext ctx{meta.version, meta.log_level, std::move(meta.capabilities), req.peer, {}};
    for (auto& [name, value] : req.headers)
        if (name.rfind("mcp-param-", 0) == 0) ctx.param_headers.emplace(name, value);
    s->handle(std::move(m), std::make_shared<HttpReply>(std::move(respond), can_stream, HttpReply::Headers{}), ctx);
}

void Gateway::get_mcp(http::Request& req, http::Respond respond) {
    auto* sid = req.header("mcp-session-id");
    if (!sid) {
        if (auto* hv = req.header("mcp-protocol-version"); hv && parse_version(*hv) && is_modern(*parse_version(*hv))) {
            auto r = http_error(405, rpc::code::server_error, "Method Not Allowed: 2026-07-28 has no GET stream; use subscriptions/listen");
            r.headers.emplace_back("Allow", "POST");
            return respond(std::move(r));
        }
        return respond(http_error(400, rpc::code::server_error, "Bad Request: Mcp-Session-Id header is required"));
    }
    auto s = find(*sid, Transport::streamable);
    if (!s) return respond(http_error(404, rpc::code::session_not_found, "Session not found"));
    if (!accepts(req, "text/event-stream"))
        return respond(http_error(406, rpc::code::server_error, "Not Acceptable: the client must accept text/event-stream"));
    // Last-Event-ID of one of this session's streams resumes that stream (its missed events, then
    // the rest of it — for a POST's stream, its answer). An id that names none (malformed, of
    // another session, of a stream forgotten) is ignored: the GET opens the standalone stream.
    std::optional<Streams::Match> resume;
    if (auto* last = req.header("last-event-id"); last && s->streams()) resume = s->streams()->find(*last);
    // A stream that is over (a cancelled request's) with nothing after that id: there is nothing to
    // resume; an empty stream that ends at once would only make clients reconnect again and again.
    if (resume && resume->stream->ended() && resume->after >= resume->stream->last_seq())
        return respond(http_error(410, rpc::code::server_error,
                                  "Gone: that stream is over and nothing follows event " + *req.header("last-event-id")));
    if (!resume && s->has_stream())
        return respond(http_error(409, rpc::code::server_error, "Conflict: only one GET stream per session"));
    s->establish();
    http::Response r;
    r.content_type = "text/event-stream";
    r.headers.emplace_back("Mcp-Session-Id", s->id());
    r.on_stream = [w = std::weak_ptr<Session>(s), peer = req.peer, resume](std::shared_ptr<http::Stream> stream) {
        auto s = w.lock();
        if (!s || s->closed()) return stream->end();
        if (resume) {
            resume->stream->connect(stream, resume->after);
            peer->on_disconnect([events = std::weak_ptr<EventStream>(resume->stream), stream] {
                if (auto e = events.lock()) e->disconnect(stream);
            });
            return;
        }
        s->attach_stream(stream);
        peer->on_disconnect([w, stream] {
            if (auto s = w.lock()) s->detach_stream(stream);
        });
    };
    respond(std::move(r));
}

void Gateway::delete_mcp(http::Request& req, http::Respond respond) {
    auto* sid = req.header("mcp-session-id");
    if (!sid) return respond(http_error(400, rpc::code::server_error, "Bad Request: Mcp-Session-Id header is required"));
    auto s = find(*sid, Transport::streamable);
    if (!s) return respond(http_error(404, rpc::code::session_not_found, "Session not found"));
    s->close("the client ended the session (DELETE)");
    http::Response r;
    r.status = 200;
    r.content_type = "text/plain";
    respond(std::move(r));
}

}  // namespace coffer::mcp
