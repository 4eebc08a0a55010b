// Session: traffic that is not a plain request/answer (G-10) — provider notifications to the
// client, the client's roots/list_changed to the providers, cancellation both ways,
// server-initiated requests and the client's answers. (Change notifications: changes.cpp; the
// 2026-07-28 input_required bridge: input.cpp.)
#include "mcp/bridge.hpp"
#include "mcp/names.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/session.hpp"

#include "curation/invocations.hpp"

#include "core/log.hpp"

#include <boost/json.hpp>

namespace coffer::mcp {

namespace json = boost::json;

namespace {

struct Parsed {
    std::string method;
    json::object params;
    std::string raw_params;  // the provider's own bytes
};

std::optional<Parsed> parse_message(const std::string& text) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    auto* o = v.if_object();
    if (ec || !o) return std::nullopt;
    auto* m = o->if_contains("method");
    if (!m || !m->is_string()) return std::nullopt;
    Parsed p;
    p.method = std::string(m->as_string());
    if (auto* params = o->if_contains("params")) {
        if (!params->is_object()) return std::nullopt;
        p.params = params->as_object();
        if (auto raw = raw::member(text, "params")) p.raw_params = std::string(*raw);
    }
    return p;
}

const char* capability_for(std::string_view method) {
    if (method == "sampling/createMessage") return "sampling";
    if (method == "elicitation/create") return "elicitation";
    if (method == "roots/list") return "roots";
    return nullptr;
}

std::string error_object(int code, std::string_view message) {
    return json::serialize(json::object{{"code", code}, {"message", message}});
}

}  // namespace

// ---- client → gateway ----

void Session::on_notification(rpc::Message& m) {
    if (m.method == "notifications/cancelled") {
        auto* p = m.params.if_object();
        auto* id = p ? p->if_contains("requestId") : nullptr;
        if (!id) return;
        if (auto it = exchanges_.find(rpc::id_key(*id)); it != exchanges_.end()) {
            auto ex = it->second;
            core::log::debug("mcp request cancelled by the client", {{"session", id_}, {"method", ex->method}});
            cancel(ex);
        }
        return;
    }
    if (m.method == "notifications/roots/list_changed") {
        // To every provider session already open (ABI 1.4 notify); none is opened for it: a later
        // one's upstream asks roots/list when it wants them.
        auto params = m.params.is_object() ? json::serialize(m.params) : std::string("{}");
        for (auto& [uid, link] : links_) link->notify(m.method, params);
        return;
    }
    if (m.method == "notifications/claude/channel/permission_request") {
        if (auto* p = m.params.if_object()) permission_request(*p);
        return;
    }
    // initialized is the session's own; progress (and tasks/status) name tokens and ids the
    // gateway rewrote on the way to the client, so an upstream could not use them unchanged.
    if (m.method == "notifications/initialized" || m.method == "notifications/progress") return;
    core::log::debug("mcp client notification not forwarded", {{"session", id_}, {"method", m.method}});
}

void Session::on_response(rpc::Message& m) {
    auto it = outbound_.find(rpc::id_key(m.id));
    if (it == outbound_.end()) return;
    auto out = it->second;
    outbound_.erase(it);
    auto link = out.link.lock();
    if (!link) return;
    if (m.kind == rpc::Kind::response) link->respond(out.token, json::serialize(m.result), {});
    else link->respond(out.token, {}, json::serialize(m.error));
}

// The client gave up on a request (notifications/cancelled, or a 2026-07-28 stream closed): the
// provider is told, and no response is sent (an HTTP exchange still open ends without one).
void Session::cancel(const std::shared_ptr<Exchange>& ex) {
    if (ex->done && !ex->input) return;
    ex->cancelled = true;
    end_invocation(ex, curation::outcome::cancelled, std::nullopt);
    if (auto link = ex->link.lock(); link && ex->call) link->cancel(ex->call);
    cancel_upstream_task(ex);  // a task the gateway ran for this call stops too
    if (auto it = listens_.find(ex->key); it != listens_.end()) {
        auto vis = visible();
        for (auto& uri : it->second.uris) {
            auto split = names::unprefix_uri(uri);
            auto* p = split ? vis.find(split->server) : nullptr;
            auto l = p ? links_.find(p->uid) : links_.end();
            if (l != links_.end())
                l->second->request("resources/unsubscribe", json::serialize(json::object{{"uri", split->name}}), {}, {});
        }
    }
    if (ex->input) parked_.erase(ex->input->state);
    for (auto it = parked_.begin(); it != parked_.end();)  // a retry waiting on a parked call
        it = it->second->input->waiting == ex ? parked_.erase(it) : std::next(it);
    if (ex->done) return;
    ex->done = true;
    untrack(ex);
    if (ex->reply) ex->reply->drop();
}

// ---- provider → client ----

void Session::to_client(const std::shared_ptr<Exchange>& related, const std::string& message) {
    if (related && !related->done && related->reply && related->reply->related(message)) return;
    if (transport_ != Transport::stateless) send(message);
}

void Session::link_notification(Link& link, Call* related, std::string text) {
    if (closed_) return;
    auto msg = parse_message(text);
    if (!msg) {
        core::log::warn("mcp provider sent a malformed notification", {{"session", id_}, {"server", link.server()}});
        return;
    }
    std::shared_ptr<Exchange> ex = related ? related->exchange().lock() : nullptr;
    const auto& method = msg->method;
    if (method == "notifications/progress") {
        if (!ex)
            if (auto* tok = msg->params.if_contains("progressToken"))
                if (auto it = progress_.find(rpc::id_key(*tok)); it != progress_.end()) ex = it->second.lock();
        if (ex && ex->input && ex->input->waiting) ex = ex->input->waiting;
        if (!ex || ex->done) return;  // progress must not outlive its request
        return to_client(ex, rpc::notification(method, msg->raw_params));
    }
    if (method == "notifications/message") {
        auto* level = msg->params.if_contains("level");
        int rank = level && level->is_string() ? bridge::log_rank(level->as_string()) : -1;
        if (ex && ex->input && ex->input->waiting) ex = ex->input->waiting;
        if (ex && is_modern(ex->version)) {  // 2026-07-28: only for requests that asked, at their level
            if (ex->log_level < 0 || rank < ex->log_level) return;
        } else if (rank < log_level_) {
            return;
        }
        if (transport_ == Transport::stateless && (!ex || ex->done)) return;
        return to_client(ex, rpc::notification(method, msg->raw_params));
    }
    if (method == "notifications/tools/list_changed" || method == "notifications/prompts/list_changed" ||
        method == "notifications/resources/list_changed")
        return list_changed(link, method);
    if (method == "notifications/resources/updated") return resource_updated(link, std::move(msg->params));
    if (method == "notifications/tasks/status") return task_status(link, std::move(msg->params));
    if (method == "notifications/cancelled") {  // the provider gave up a request it sent the client
        auto* rid = msg->params.if_contains("requestId");
        if (!rid || !(rid->is_uint64() || (rid->is_int64() && rid->as_int64() >= 0))) return;
        auto token = rid->is_uint64() ? rid->as_uint64() : static_cast<std::uint64_t>(rid->as_int64());
        for (auto it = outbound_.begin(); it != outbound_.end(); ++it) {
            if (it->second.token != token || it->second.link.lock().get() != &link) continue;
            auto rel = it->second.related.lock();
            json::object p{{"requestId", json::parse(it->first)}};
            if (auto* reason = msg->params.if_contains("reason")) p["reason"] = *reason;
            outbound_.erase(it);
            return to_client(rel, rpc::notification(method, json::serialize(p)));
        }
        return;
    }
    if (transport_ != Transport::stateless) to_client(ex, rpc::notification(method, msg->raw_params));
}

void Session::link_request(Link& link, Call* related, std::uint64_t token, std::string text) {
    if (closed_) return;
    auto msg = parse_message(text);
    if (!msg) {
        link.respond(token, {}, error_object(rpc::code::invalid_request, "malformed server request"));
        return;
    }
    std::shared_ptr<Exchange> ex = related ? related->exchange().lock() : nullptr;
    if (ex && ex->input && ex->input->waiting) ex = ex->input->waiting;
    const auto& caps = ex ? ex->capabilities : who_.capabilities;
    if (auto* cap = capability_for(msg->method); cap && !caps.contains(cap)) {
        link.respond(token, {},
                     error_object(rpc::code::method_not_found,
                                  "the client did not declare the '" + std::string(cap) + "' capability"));
        return;
    }
    json::object request{{"method", msg->method}};
    if (!msg->raw_params.empty()) request["params"] = std::move(msg->params);
    auto origin = related ? related->exchange().lock() : nullptr;
    if (origin && is_modern(origin->version)) return ask_in_result(link, origin, token, std::move(request));
    if (transport_ == Transport::stateless) {
        link.respond(token, {},
                     error_object(rpc::code::internal_error,
                                  "a 2026-07-28 client can only be asked within the request the question belongs to"));
        return;
    }
    relay_request(link, ex, token, std::move(request));
}

void Session::relay_request(Link& link, const std::shared_ptr<Exchange>& related, std::uint64_t token,
                            json::object request) {
    json::value id = json::string("coffer-" + std::to_string(++seq_));
    auto params = request.if_contains("params") ? json::serialize(request.at("params")) : std::string();
    auto text = rpc::request(id, request.at("method").as_string(), params);
    // Only on a live stream: a request kept for a resume that may never come would hold the provider.
    bool sent = (related && !related->done && related->reply && related->reply->related(text)) ||
                (has_stream() && send(text));
    if (!sent) {
        link.respond(token, {},
                     error_object(rpc::code::internal_error,
                                  "the client has no open stream for server requests (open GET /mcp first)"));
        return;
    }
    outbound_[rpc::id_key(id)] = Outbound{link.weak_from_this(), token, related};
}

}  // namespace coffer::mcp
