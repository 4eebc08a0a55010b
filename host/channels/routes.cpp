#include "channels/routes.hpp"

#include "api/body.hpp"
#include "resource/model.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace coffer::channels {

namespace json = boost::json;
using api::Params;
using api::Reply;
using core::Error;

namespace {

resource::Actor actor(const http::Request& r) {
    auto* a = r.header("x-coffer-actor");
    return resource::actor_from(a ? *a : std::string());
}

// The kinds whose plugins are channel adapters (ABI 1.6), by name.
std::vector<std::string> adapter_kinds(plugin::Registry& registry) {
    std::vector<std::string> out;
    for (auto* k : registry.kinds())
        if (k->fns.channel) out.push_back(k->name);
    return out;
}

core::Result<json::object> find_channel(ChannelDeps& d, const std::string& name) {
    for (auto& kind : adapter_kinds(d.registry))
        if (auto r = d.resources.show(kind, name)) return std::move(r).value();
    return Error::make(core::code::not_found, "no channel named '" + name + "' (coffer channel list)");
}

// The resource with the core's view of it: owner, health ("receiving" or why not), counters.
json::object channel_view(ChannelDeps& d, json::object r) {
    json::object o{{"name", r["name"]}, {"adapter", r["kind"]}, {"enabled", r["enabled"]},
                   {"description", r["description"]}, {"config", r["config"]}};
    auto core = d.channels.status(std::string(r["uid"].as_string()));
    std::string health = "receiving";
    json::value adapter_status = r.contains("status") ? r["status"] : json::value(nullptr);
    if (!r["enabled"].as_bool()) health = "not receiving: the channel is disabled";
    else if (!core["receiving"].as_bool())
        health = "not receiving: " + (core.contains("error") ? std::string(core["error"].as_string()) : std::string("the adapter is not running"));
    else if (auto* s = adapter_status.if_object())
        if (auto* p = s->if_contains("plugin"); p && p->is_object())
            if (auto* h = p->as_object().if_contains("health"); h && h->is_string() && !h->as_string().empty())
                health = std::string(h->as_string());
    o["health"] = health;
    for (auto key : {"owner", "pairing", "counters", "capabilities", "inbox"})
        if (auto* v = core.if_contains(key)) o[key] = *v;
    o["status"] = adapter_status;
    return o;
}

}  // namespace

void add_channel_routes(api::Api& api, ChannelDeps d) {
    api.add_route("GET", "/api/v1/channels", [d](const http::Request&, const Params&) mutable -> core::Result<Reply> {
        json::array out, kinds;
        for (auto& kind : adapter_kinds(d.registry)) {
            kinds.emplace_back(kind);
            auto list = d.resources.list(kind, false);
            if (!list) return list.error();
            for (auto& r : *list) {
                auto full = d.resources.show(kind, std::string(r.as_object().at("name").as_string()));
                if (full) out.push_back(channel_view(d, std::move(*full)));
            }
        }
        return Reply{200, json::object{{"channels", std::move(out)}, {"adapters", std::move(kinds)}}};
    });
    // {"name", "adapter", "config", "description"?}: a resource of the adapter's kind.
    api.add_route("POST", "/api/v1/channels", [d](const http::Request& r, const Params&) mutable -> core::Result<Reply> {
        auto body = api::parse_body(r, false);
        if (!body) return body.error();
        auto* o = body->if_object();
        if (!o) return Error::make(core::code::bad_request, "request body must be a JSON object {name, adapter, config}");
        auto kinds = adapter_kinds(d.registry);
        std::string list;
        for (auto& k : kinds) list += (list.empty() ? "" : ", ") + k;
        auto* adapter = o->if_contains("adapter");
        if (!adapter || !adapter->is_string() || std::find(kinds.begin(), kinds.end(), adapter->as_string()) == kinds.end())
            return Error::make(core::code::validation_failed, "/adapter must name a channel adapter (" + list + ")",
                               json::object{{"errors", json::array{json::object{{"pointer", "/adapter"},
                                                                                {"message", "must be one of: " + list}}}}});
        json::object create;
        for (auto& kv : *o) {
            if (kv.key() == "adapter") create["kind"] = kv.value();
            else create[kv.key()] = kv.value();
        }
        if (auto* n = o->if_contains("name"); n && n->is_string())
            if (find_channel(d, std::string(n->as_string())))
                return Error::make(core::code::conflict, "a channel named '" + std::string(n->as_string()) + "' already exists");
        auto res = d.resources.create(create, actor(r));
        if (!res) return res.error();
        auto full = d.resources.show(std::string((*res)["kind"].as_string()), std::string((*res)["name"].as_string()));
        if (!full) return full.error();
        return Reply{201, json::object{{"channel", channel_view(d, std::move(*full))}}};
    });
    api.add_route("GET", "/api/v1/channels/{name}", [d](const http::Request&, const Params& p) mutable -> core::Result<Reply> {
        auto c = find_channel(d, p.at("name"));
        if (!c) return c.error();
        return Reply{200, json::object{{"channel", channel_view(d, std::move(*c))}}};
    });
    api.add_route("DELETE", "/api/v1/channels/{name}", [d](const http::Request& r, const Params& p) mutable -> core::Result<Reply> {
        auto c = find_channel(d, p.at("name"));
        if (!c) return c.error();
        auto uid = std::string((*c)["uid"].as_string());
        auto res = d.resources.remove(std::string((*c)["kind"].as_string()), p.at("name"), actor(r));
        if (!res) return res.error();
        if (auto f = d.channels.forget(uid); !f) return f.error();
        return Reply{200, json::object{{"deleted", std::move(*res)}}};
    });
    // {"ttl_s"?: 1…3600}: a fresh single-use code; the previous one stops working.
    api.add_route("POST", "/api/v1/channels/{name}/pair", [d](const http::Request& r, const Params& p) mutable -> core::Result<Reply> {
        auto body = api::parse_body(r, true);
        if (!body) return body.error();
        std::int64_t ttl = 3600;
        if (auto* o = body->if_object()) {
            for (auto& kv : *o)
                if (kv.key() != "ttl_s")
                    return Error::make(core::code::validation_failed, "/" + std::string(kv.key()) + " is not a known field");
            if (auto* t = o->if_contains("ttl_s")) {
                if (!t->is_int64() || t->as_int64() < 1 || t->as_int64() > 3600)
                    return Error::make(core::code::validation_failed, "/ttl_s must be a whole number of seconds from 1 to 3600",
                                       json::object{{"errors", json::array{json::object{{"pointer", "/ttl_s"},
                                                                                        {"message", "must be 1…3600"}}}}});
                ttl = t->as_int64();
            }
        } else if (!body->is_null()) {
            return Error::make(core::code::bad_request, "request body must be a JSON object {ttl_s?}");
        }
        auto c = find_channel(d, p.at("name"));
        if (!c) return c.error();
        auto code = d.channels.pair(std::string((*c)["uid"].as_string()), std::chrono::seconds(ttl));
        if (!code) return code.error();
        return Reply{200, std::move(*code)};
    });
    api.add_route("POST", "/api/v1/channels/{name}/unpair", [d](const http::Request&, const Params& p) mutable -> core::Result<Reply> {
        auto c = find_channel(d, p.at("name"));
        if (!c) return c.error();
        if (auto r = d.channels.unpair(std::string((*c)["uid"].as_string())); !r) return r.error();
        return Reply{200, json::object{{"unpaired", true}}};
    });
}

}  // namespace coffer::channels
