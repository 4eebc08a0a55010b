#include "chat/routes.hpp"

#include "api/body.hpp"
#include "api/route_helpers.hpp"
#include "chat/sse_stream.hpp"
#include "resource/model.hpp"

#include <boost/json.hpp>

namespace coffer::chat {

namespace json = boost::json;
using api::Params;
using api::Reply;
using core::Error;

namespace {

using api::wrap;
constexpr auto actor = api::request_actor;

core::Result<Reply> reply(core::Result<json::object> r, int status = 200) {
    if (!r) return std::move(r).error();
    return Reply{status, std::move(r).value()};
}

// The kinds whose plugins drive agents (ABI 1.5), by name.
std::vector<std::string> agent_kinds(plugin::Registry& registry) {
    std::vector<std::string> out;
    for (auto* k : registry.kinds())
        if (k->fns.agent) out.push_back(k->name);
    return out;
}

// The agent resource called `name`, whatever its driver.
core::Result<json::object> find_agent(ChatDeps& d, const std::string& name) {
    for (auto& kind : agent_kinds(d.registry))
        if (auto r = d.resources.show(kind, name)) return std::move(r).value();
    return Error::make(core::code::not_found, "no agent named '" + name + "'");
}

json::object agent_view(json::object resource) {
    json::object o{{"name", resource["name"]}, {"driver", resource["kind"]}, {"enabled", resource["enabled"]},
                   {"description", resource["description"]}, {"config", resource["config"]}};
    if (auto* s = resource.if_contains("status")) o["status"] = *s;
    return o;
}

std::optional<std::uint64_t> last_event_id(const http::Request& r) {
    auto* h = r.header("last-event-id");
    if (!h || h->empty() || h->size() > 19 || h->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoull(*h);
}

}  // namespace

void add_agent_routes(api::Api& api, ChatDeps d) {
    api.add_route("GET", "/api/v1/agents", [d](const http::Request&, const Params&) mutable -> core::Result<Reply> {
        json::array out;
        for (auto& kind : agent_kinds(d.registry)) {
            auto list = d.resources.list(kind, false);
            if (!list) return list.error();
            for (auto& r : *list) out.push_back(agent_view(r.as_object()));
        }
        return Reply{200, json::object{{"agents", std::move(out)}, {"drivers", [&] {
                                                                      json::array a;
                                                                      for (auto& k : agent_kinds(d.registry)) a.emplace_back(k);
                                                                      return a;
                                                                  }()}}};
    });
    // {"name", "driver", "config"?, "description"?}: a resource of the driver's kind.
    api.add_route("POST", "/api/v1/agents", [d](const http::Request& r, const Params&) mutable -> core::Result<Reply> {
        auto body = api::parse_body(r, false);
        if (!body) return body.error();
        auto* o = body->if_object();
        if (!o) return Error::make(core::code::bad_request, "request body must be a JSON object {name, driver, config}");
        auto* driver = o->if_contains("driver");
        auto kinds = agent_kinds(d.registry);
        std::string list;
        for (auto& k : kinds) list += (list.empty() ? "" : ", ") + k;
        if (!driver || !driver->is_string() || std::find(kinds.begin(), kinds.end(), driver->as_string()) == kinds.end())
            return Error::make(core::code::validation_failed, "/driver must name an agent driver (" + list + ")",
                               json::object{{"errors", json::array{json::object{{"pointer", "/driver"},
                                                                                {"message", "must be one of: " + list}}}}});
        json::object create;
        for (auto& kv : *o) {
            if (kv.key() == "driver") create["kind"] = kv.value();
            else create[kv.key()] = kv.value();
        }
        if (auto* n = o->if_contains("name"); n && n->is_string())
            if (auto other = find_agent(d, std::string(n->as_string())))
                return Error::make(core::code::conflict, "an agent named '" + std::string(n->as_string()) + "' already exists (driver " +
                                                             std::string((*other)["kind"].as_string()) + ")");
        auto res = d.resources.create(create, actor(r));
        if (!res) return res.error();
        return Reply{201, json::object{{"agent", agent_view(std::move(*res))}}};
    });
    api.add_route("GET", "/api/v1/agents/{name}", [d](const http::Request&, const Params& p) mutable -> core::Result<Reply> {
        auto a = find_agent(d, p.at("name"));
        if (!a) return a.error();
        return Reply{200, json::object{{"agent", agent_view(std::move(*a))}}};
    });
    api.add_route("DELETE", "/api/v1/agents/{name}", [d](const http::Request& r, const Params& p) mutable -> core::Result<Reply> {
        auto a = find_agent(d, p.at("name"));
        if (!a) return a.error();
        return wrap(d.resources.remove(std::string((*a)["kind"].as_string()), p.at("name"), actor(r)), "deleted");
    });
}

void add_conversation_routes(api::Api& api, ChatDeps d) {
    auto& o = d.orchestrator;
    auto drainer = std::make_shared<Drainer>(d.network);
    api.add_route("POST", "/api/v1/conversations", [&o](const http::Request& r, const Params&) -> core::Result<Reply> {
        auto body = api::parse_body(r, false);
        if (!body) return body.error();
        return wrap(o.create(*body), "conversation", 201);
    });
    api.add_route("GET", "/api/v1/conversations", [&o](const http::Request&, const Params&) {
        return wrap(o.list(), "conversations");
    });
    api.add_route("GET", "/api/v1/conversations/{id}", [&o](const http::Request& r, const Params& p) -> core::Result<Reply> {
        int limit = 100;
        if (auto it = r.query.find("messages"); it != r.query.end()) {
            if (it->second.empty() || it->second.size() > 4 || it->second.find_first_not_of("0123456789") != std::string::npos)
                return Error::make(core::code::bad_request, "messages must be a number from 0 to 1000");
            limit = std::min(std::stoi(it->second), 1000);
        }
        return wrap(o.show(p.at("id"), limit), "conversation");
    });
    api.add_route("DELETE", "/api/v1/conversations/{id}", [&o](const http::Request&, const Params& p) -> core::Result<Reply> {
        if (auto r = o.remove(p.at("id")); !r) return r.error();
        return Reply{200, json::object{{"deleted", p.at("id")}}};
    });
    api.add_route("POST", "/api/v1/conversations/{id}/messages", [&o](const http::Request& r, const Params& p) -> core::Result<Reply> {
        auto body = api::parse_body(r, false);
        if (!body) return body.error();
        return reply(o.send(p.at("id"), *body), 202);
    });
    api.add_route("GET", "/api/v1/conversations/{id}/messages", [&o](const http::Request&, const Params& p) -> core::Result<Reply> {
        auto c = o.show(p.at("id"), 1000);
        if (!c) return c.error();
        return Reply{200, json::object{{"messages", (*c)["messages"]}}};
    });
    api.add_route("POST", "/api/v1/conversations/{id}/interrupt", [&o](const http::Request&, const Params& p) {
        return reply(o.interrupt(p.at("id")));
    });
    api.add_route("GET", "/api/v1/conversations/{id}/queue", [&o](const http::Request&, const Params& p) {
        return reply(o.queue(p.at("id")));
    });
    api.add_route("POST", "/api/v1/conversations/{id}/queue/resume", [&o](const http::Request&, const Params& p) {
        return reply(o.resume_queue(p.at("id")));
    });
    api.add_route("POST", "/api/v1/conversations/{id}/queue/clear", [&o](const http::Request&, const Params& p) {
        return reply(o.clear_queue(p.at("id")));
    });
    api.add_route("DELETE", "/api/v1/conversations/{id}/queue/{item}", [&o](const http::Request&, const Params& p) {
        return reply(o.remove_queued(p.at("id"), p.at("item")));
    });
    // The SSE stream: subscribed here, on the service thread, in the same step that snapshots
    // the ring, so nothing published in between is lost or sent twice.
    api.add_route("GET", "/api/v1/conversations/{id}/events", [d, drainer](const http::Request& r, const Params& p) -> core::Result<Reply> {
        auto stream = std::make_shared<SseStream>(drainer, d.orchestrator.bus(), d.heartbeat);
        auto attached = d.orchestrator.attach(p.at("id"), last_event_id(r), stream->waker());
        if (!attached) return attached.error();
        stream->set_subscription(attached->subscription);
        if (r.peer) r.peer->on_disconnect([stream] { stream->close(); });
        Reply out;
        out.content_type = "text/event-stream";
        out.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
        out.on_stream = [stream, preamble = std::move(attached->preamble)](std::shared_ptr<http::Stream> s) mutable {
            stream->start(std::move(s), std::move(preamble));
        };
        return out;
    });
}

}  // namespace coffer::chat
