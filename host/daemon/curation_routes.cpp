#include "daemon/curation_routes.hpp"

#include "api/body.hpp"
#include "api/route_helpers.hpp"
#include "core/clock.hpp"
#include "curation/invocations.hpp"
#include "mcp/names.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <map>

namespace coffer::daemon {

namespace json = boost::json;
using core::Error;
using curation::Type;

namespace {

constexpr std::size_t kMaxUri = 2048;

// The resource behind a server name: a resource of a kind that contributes to the gateway.
core::Result<json::object> find_server(CurationDeps& d, const std::string& server) {
    auto all = d.resources.list(std::nullopt, true);
    if (!all) return all.error();
    for (auto& r : *all) {
        auto& o = r.as_object();
        if (o.at("name").as_string() != server) continue;
        auto* k = d.registry.find_kind(std::string(o.at("kind").as_string()));
        if (k && k->fns.mcp) return o;
    }
    return Error::make(core::code::not_found, "no MCP server named '" + server + "' (see `coffer mcp list`)");
}

bool auto_enable_of(const json::object& res) {
    auto* c = res.if_contains("config");
    auto* v = c && c->is_object() ? c->as_object().if_contains("auto_enable_new") : nullptr;
    return !(v && v->is_bool() && !v->as_bool());
}

std::string exposed(Type t, const std::string& server, const std::string& name) {
    return t == Type::resource || t == Type::resource_template ? mcp::names::prefix_uri(server, name)
                                                               : mcp::names::join(server, name);
}

Error invalid(const std::string& pointer, const std::string& message) {
    return Error::make(core::code::validation_failed, message,
                       json::object{{"errors", json::array{json::object{{"pointer", pointer}, {"message", message}}}}});
}

// The capability name from {"name": …}: the provider's own name, or the namespaced one.
core::Result<std::string> capability_name(const http::Request& r, Type t, const std::string& server) {
    auto parsed = api::parse_body(r, true, 8);
    if (!parsed) return std::move(parsed).error();
    const json::value& body = *parsed;
    if (!body.is_object()) return Error::make(core::code::bad_request, "request body must be a JSON object {\"name\": …}");
    auto* n = body.as_object().if_contains("name");
    if (!n || !n->is_string() || n->as_string().empty()) return invalid("/name", "name must be a non-empty string");
    std::string name(n->as_string());
    if (std::any_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
        return invalid("/name", "name must not contain control characters");
    if (t == Type::resource || t == Type::resource_template) {
        if (auto s = mcp::names::unprefix_uri(name); s && s->server == server) name = std::string(s->name);
        if (name.empty() || name.size() > kMaxUri)
            return invalid("/name", t == Type::resource ? "a resource URI of 1 to 2048 characters"
                                                        : "a URI template of 1 to 2048 characters");
        return name;
    }
    auto prefix = server + std::string(mcp::names::kSeparator);
    if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size()) name = name.substr(prefix.size());
    if (!mcp::names::valid_exposed(mcp::names::join(server, name)))
        return invalid("/name", "'" + name + "' can never be exposed as " + server +
                                    "__<name> (names match ^[A-Za-z0-9_-]{1,64}$ once prefixed)");
    return name;
}

json::value time_or_null(std::int64_t ms) { return ms ? json::value(core::iso_time(ms)) : json::value(nullptr); }

json::object entry_json(Type t, const std::string& server, const std::string& name, const curation::Entry* e,
                        bool auto_enable) {
    return json::object{{"name", name},
                        {"exposed_name", exposed(t, server, name)},
                        {"enabled", e ? e->enabled : auto_enable},
                        {"origin", e ? json::value(e->origin) : json::value(nullptr)},
                        {"first_seen_at", e ? time_or_null(e->first_seen_ms) : json::value(nullptr)},
                        {"updated_at", e ? time_or_null(e->updated_ms) : json::value(nullptr)}};
}

json::array capability_list(CurationDeps& d, Type t, const std::string& server, bool auto_enable,
                            const std::vector<mcp::Gateway::Listed>* live) {
    auto prefs = d.curator.server(server);
    std::map<std::string, json::object> out;
    if (live)
        for (auto& l : *live) {
            auto o = entry_json(t, server, l.name, prefs ? prefs->find(t, l.name) : nullptr, auto_enable);
            o["present"] = true;
            if (!l.description.empty()) o["description"] = l.description;
            out.emplace(l.name, std::move(o));
        }
    if (prefs)
        for (auto& [name, e] : prefs->by_type[static_cast<std::size_t>(t)]) {
            if (out.count(name)) continue;
            auto o = entry_json(t, server, name, &e, auto_enable);
            o["present"] = live ? json::value(false) : json::value(nullptr);  // remembered while absent
            out.emplace(name, std::move(o));
        }
    json::array a;
    for (auto& [name, o] : out) a.push_back(std::move(o));
    return a;
}

core::Result<int> int_query(const http::Request& r, const char* key, int def, int lo, int hi) {
    auto it = r.query.find(key);
    if (it == r.query.end()) return def;
    try {
        std::size_t used = 0;
        int v = std::stoi(it->second, &used);
        if (used == it->second.size() && v >= lo && v <= hi) return v;
    } catch (...) {
    }
    return Error::make(core::code::bad_request, std::string(key) + " must be an integer between " + std::to_string(lo) +
                                                    " and " + std::to_string(hi));
}

}  // namespace

void add_curation_routes(api::Api& api, CurationDeps deps) {
    auto d = std::make_shared<CurationDeps>(deps);
    // The live listing starts the server and waits for it (up to the probe timeout): the service
    // thread is not held meanwhile, so other REST calls go on.
    api.add_async_route(
        "GET", "/api/v1/mcp/servers/{server}/capabilities",
        [d](const http::Request& r, const api::Params& p, api::Done done) {
            auto server = p.at("server");
            auto res = find_server(*d, server);
            if (!res) return done(res.error());
            bool auto_enable = auto_enable_of(*res);
            auto answer = [d, server, auto_enable, kind = res->at("kind")](const mcp::Gateway::Listing* live) {
                bool ok = live && live->ok;
                json::object out{{"server", server},
                                 {"kind", kind},
                                 {"auto_enable_new", auto_enable},
                                 {"live", ok},
                                 {"live_error", live && !ok ? json::value(live->error) : json::value(nullptr)}};
                // An unreachable server shows what is remembered.
                out["tools"] = capability_list(*d, Type::tool, server, auto_enable, ok ? &live->tools : nullptr);
                out["resources"] = capability_list(*d, Type::resource, server, auto_enable, ok ? &live->resources : nullptr);
                out["prompts"] = capability_list(*d, Type::prompt, server, auto_enable, ok ? &live->prompts : nullptr);
                out["templates"] = capability_list(*d, Type::resource_template, server, auto_enable, ok ? &live->templates : nullptr);
                return api::Reply{200, std::move(out)};
            };
            if (r.query.count("live") && r.query.at("live") == "false") return done(answer(nullptr));
            d->gateway.probe(server, [d, answer, done](mcp::Gateway::Listing live) {
                boost::asio::post(d->service, [answer, done, live = std::move(live)] {
                    try {
                        done(answer(&live));
                    } catch (const std::exception& e) {
                        done(Error::make(core::code::internal, std::string("internal error: ") + e.what()));
                    }
                });
            });
        });
    for (bool enable : {true, false}) {
        api.add_route("POST", std::string("/api/v1/mcp/servers/{server}/{type}/") + (enable ? "enable" : "disable"),
                      [d, enable](const http::Request& r, const api::Params& p) -> core::Result<api::Reply> {
                          auto& server = p.at("server");
                          auto t = curation::parse_type(p.at("type"));
                          if (!t)
                              return Error::make(core::code::not_found,
                                                 "unknown capability type '" + p.at("type") + "': tools, resources, prompts or templates");
                          auto res = find_server(*d, server);
                          if (!res) return res.error();
                          auto name = capability_name(r, *t, server);
                          if (!name) return name.error();
                          auto actor = api::request_actor_name(r);
                          auto e = d->curator.set(server, *t, *name, enable, actor);
                          if (!e) return e.error();
                          auto o = entry_json(*t, server, *name, &*e, auto_enable_of(*res));
                          o["server"] = server;
                          o["type"] = curation::to_string(*t);
                          return api::Reply{200, json::object{{"capability", std::move(o)}}};
                      });
    }
    api.add_route("GET", "/api/v1/mcp/invocations", [d](const http::Request& r, const api::Params&) -> core::Result<api::Reply> {
        auto limit = int_query(r, "limit", 50, 1, 1000);
        if (!limit) return limit.error();
        std::optional<std::string> server;
        if (auto it = r.query.find("server"); it != r.query.end() && !it->second.empty()) server = it->second;
        auto rows = curation::list_invocations(d->db, server, *limit);
        if (!rows) return rows.error();
        return api::Reply{200, json::object{{"invocations", std::move(*rows)}}};
    });
}

}  // namespace coffer::daemon
