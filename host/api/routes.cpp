// The /api/v1 route table (see docs/rest-api.md).
#include "api/api.hpp"

#include "api/body.hpp"
#include "api/route_helpers.hpp"

#include "resource/audit.hpp"
#include "resource/retention.hpp"

#include <boost/json.hpp>

namespace coffer::api {

namespace json = boost::json;
using core::Error;

namespace {

constexpr auto actor = request_actor;

}  // namespace

void Api::add_core_routes() {
    auto& c = ctx_;
    router_.add("GET", "/api/v1/daemon/status", [&c](auto&, auto&) -> core::Result<Reply> {
        return Reply{200, c.daemon.status()};
    });
    router_.add("POST", "/api/v1/daemon/stop", [&c](auto&, auto&) -> core::Result<Reply> {
        c.daemon.request_stop();
        return Reply{202, json::object{{"stopping", true}}};
    });
    router_.add("POST", "/api/v1/daemon/rotate-token", [&c](const http::Request& r, auto&) -> core::Result<Reply> {
        if (auto res = c.daemon.rotate_token(resource::to_string(actor(r))); !res) return res.error();
        return Reply{200, json::object{{"rotated", true}}};
    });
    router_.add("GET", "/api/v1/plugins", [&c](auto&, auto&) -> core::Result<Reply> {
        return Reply{200, json::object{{"plugins", c.registry.describe_plugins()}}};
    });
    router_.add("GET", "/api/v1/kinds", [&c](auto&, auto&) -> core::Result<Reply> {
        return Reply{200, json::object{{"kinds", c.registry.describe_kinds()}}};
    });
    router_.add("GET", "/api/v1/resources", [&c](const http::Request& r, auto&) -> core::Result<Reply> {
        std::optional<std::string> kind;
        if (auto it = r.query.find("kind"); it != r.query.end() && !it->second.empty()) kind = it->second;
        bool all = r.query.count("all") && r.query.at("all") == "true";
        auto text = c.resources.list_document(kind, all);
        if (!text) return text.error();
        Reply reply;
        reply.json_text = std::move(*text);
        return reply;
    });
    router_.add("POST", "/api/v1/resources", [&c](const http::Request& r, auto&) -> core::Result<Reply> {
        auto body = parse_body(r, false);
        if (!body) return body.error();
        return wrap(c.resources.create(*body, actor(r)), "resource", 201);
    });
    router_.add("GET", "/api/v1/resources/{kind}/{name}", [&c](auto&, const Params& p) -> core::Result<Reply> {
        return wrap(c.resources.show(p.at("kind"), p.at("name")), "resource");
    });
    router_.add("PATCH", "/api/v1/resources/{kind}/{name}", [&c](const http::Request& r, const Params& p) -> core::Result<Reply> {
        auto body = parse_body(r, false);
        if (!body) return body.error();
        return wrap(c.resources.update(p.at("kind"), p.at("name"), *body, actor(r)), "resource");
    });
    router_.add("POST", "/api/v1/resources/{kind}/{name}/enable", [&c](const http::Request& r, const Params& p) {
        return wrap(c.resources.set_enabled(p.at("kind"), p.at("name"), true, actor(r)), "resource");
    });
    router_.add("POST", "/api/v1/resources/{kind}/{name}/disable", [&c](const http::Request& r, const Params& p) {
        return wrap(c.resources.set_enabled(p.at("kind"), p.at("name"), false, actor(r)), "resource");
    });
    router_.add("DELETE", "/api/v1/resources/{kind}/{name}", [&c](const http::Request& r, const Params& p) {
        return wrap(c.resources.remove(p.at("kind"), p.at("name"), actor(r)), "deleted");
    });
    router_.add("POST", "/api/v1/resources/{kind}/{name}/actions/{action}",
                [&c](const http::Request& r, const Params& p) -> core::Result<Reply> {
                    auto body = parse_body(r, true);
                    if (!body) return body.error();
                    return wrap(c.resources.action(p.at("kind"), p.at("name"), p.at("action"), *body, actor(r)), "result");
                });
    router_.add("POST", "/api/v1/kinds/{kind}/actions/{action}",
                [&c](const http::Request& r, const Params& p) -> core::Result<Reply> {
                    auto body = parse_body(r, true);
                    if (!body) return body.error();
                    return wrap(c.resources.kind_action(p.at("kind"), p.at("action"), *body, actor(r)), "result");
                });
    router_.add("GET", "/api/v1/audit", [&c](const http::Request& r, auto&) -> core::Result<Reply> {
        int limit = 50;
        if (auto it = r.query.find("limit"); it != r.query.end()) {
            try {
                std::size_t used = 0;
                limit = std::stoi(it->second, &used);
                if (used != it->second.size()) throw std::invalid_argument("trailing");
            } catch (...) {
                return Error::make(core::code::bad_request, "limit must be an integer between 1 and 1000");
            }
            if (limit < 1 || limit > 1000) return Error::make(core::code::bad_request, "limit must be between 1 and 1000");
        }
        return wrap(resource::list_audit(c.db, limit), "events");
    });
    router_.add("GET", "/api/v1/retention", [&c](auto&, auto&) { return wrap(resource::list_retention(c.db), "retention"); });
    router_.add("PUT", "/api/v1/retention/{table}", [&c](const http::Request& r, const Params& p) -> core::Result<Reply> {
        auto body = parse_body(r, false);
        if (!body) return body.error();
        auto* o = body->if_object();
        auto* d = o ? o->if_contains("days") : nullptr;
        if (!d || !(d->is_null() || d->is_int64() || d->is_uint64()))
            return Error::make(core::code::validation_failed, "body must be {\"days\": <integer> | null}",
                               json::object{{"errors", json::array{json::object{
                                                           {"pointer", "/days"}, {"message", "must be an integer or null"}}}}});
        std::optional<int> days;
        if (!d->is_null()) {
            auto n = d->is_int64() ? d->as_int64() : static_cast<std::int64_t>(std::min<std::uint64_t>(d->as_uint64(), 1u << 30));
            days = static_cast<int>(std::max<std::int64_t>(std::min<std::int64_t>(n, 1 << 30), -(1 << 30)));
        }
        auto res = resource::set_retention(c.db, p.at("table"), days, resource::to_string(actor(r)));
        if (!res) return res.error();
        return Reply{200, json::object{{"retention", json::object{{"table", p.at("table")},
                                                                  {"days", days ? json::value(*days) : json::value(nullptr)}}}}};
    });
}

}  // namespace coffer::api
