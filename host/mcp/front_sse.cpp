// Gateway: the legacy HTTP+SSE transport (2024-11-05): GET /sse opens the session's stream and
// names the POST endpoint; POST /messages?sessionId=… carries client messages (202), whose
// answers go out on the stream. The session ends when the stream does.
#include "mcp/gateway.hpp"
#include "mcp/reply.hpp"
#include "mcp/sse.hpp"

#include "core/log.hpp"

namespace coffer::mcp {

void Gateway::get_sse(http::Request& req, http::Respond respond) {
    if (!accepts(req, "text/event-stream"))
        return respond(http_error(406, rpc::code::server_error, "Not Acceptable: the client must accept text/event-stream"));
    auto admitted = open_session(Door::http, req.connection, Transport::sse, Version::v2024_11_05, {});
    if (!admitted.session) return respond(refusal_http(admitted.refusal, nullptr));
    auto s = std::move(admitted.session);
    http::Response r;
    r.content_type = "text/event-stream";
    r.on_stream = [w = std::weak_ptr<Session>(s), peer = req.peer](std::shared_ptr<http::Stream> stream) {
        auto s = w.lock();
        if (!s || s->closed()) return stream->end();
        stream->write(sse::event("/messages?sessionId=" + s->id(), "endpoint"));
        s->attach_stream(stream);
        peer->on_disconnect([w] {
            if (auto s = w.lock()) s->close("the client closed the SSE stream");
        });
    };
    respond(std::move(r));
}

void Gateway::post_messages(http::Request& req, http::Respond respond) {
    auto it = req.query.find("sessionId");
    auto s = it == req.query.end() ? nullptr : find(it->second, Transport::sse);
    if (!s) return respond(http_error(404, rpc::code::session_not_found, "Session not found (open GET /sse first)"));
    if (!json_body(req))
        return respond(http_error(415, rpc::code::server_error, "Unsupported Media Type: Content-Type must be application/json"));
    auto parsed = rpc::parse(req.body);
    if (parsed.error) return respond(rpc_http(400, parsed.error->id, parsed.error->code, parsed.error->message));
    auto accepted = [&] {
        http::Response r;
        r.status = 202;
        r.content_type = "text/plain";
        r.body = "Accepted";
        respond(std::move(r));
    };
    RequestContext ctx{s->version(), -1, {}, req.peer, {}};
    if (parsed.batch) {
        if (!allows_batch(s->version()))
            return respond(rpc_http(400, nullptr, rpc::code::invalid_request,
                                    "Invalid Request: JSON-RPC batches are not part of MCP " +
                                        std::string(to_string(s->version()))));
        s->handle_batch(std::move(parsed.entries),
                        [w = std::weak_ptr<Session>(s)](std::string body, int) {
                            if (auto s = w.lock(); s && !body.empty()) s->send(body);
                        },
                        ctx);
        return accepted();
    }
    auto& entry = parsed.entries.front();
    if (entry.error) return respond(rpc_http(400, entry.error->id, entry.error->code, entry.error->message));
    auto& m = *entry.message;
    bool request = m.kind == rpc::Kind::request;
    s->handle(std::move(m), request ? std::make_shared<SessionStreamReply>(s) : nullptr, ctx);
    accepted();
}

}  // namespace coffer::mcp
