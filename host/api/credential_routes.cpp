#include "api/credential_routes.hpp"

#include "api/body.hpp"
#include "api/route_helpers.hpp"

#include "resource/model.hpp"

#include <openssl/crypto.h>

#include <boost/json.hpp>

namespace coffer::api {

namespace json = boost::json;
using core::Error;

namespace {

constexpr auto actor_of = request_actor_name;

Error invalid(std::string pointer, std::string message) {
    auto text = message;
    return Error::make(core::code::validation_failed, "the body is invalid: " + pointer + " " + text,
                       json::object{{"errors", json::array{json::object{{"pointer", std::move(pointer)},
                                                                        {"message", std::move(message)}}}}});
}

// {ref, value} with nothing else. The value is moved out of the parsed document.
core::Result<std::pair<std::string, std::string>> parse_set_body(const http::Request& r) {
    if (r.body.empty()) return Error::make(core::code::bad_request, "request body is empty; send {\"ref\", \"value\"}");
    auto parsed = parse_body(r, false, 8);
    if (!parsed) return std::move(parsed).error();
    json::value& v = *parsed;
    auto* o = v.if_object();
    if (!o) return Error::make(core::code::bad_request, "request body must be a JSON object {\"ref\", \"value\"}");
    for (auto& [k, val] : *o)
        if (k != "ref" && k != "value") return invalid("/" + std::string(k), "is not a member of a credential (only ref and value)");
    auto* ref = o->if_contains("ref");
    if (!ref || !ref->is_string()) return invalid("/ref", "must be a string");
    auto* value = o->if_contains("value");
    if (!value || !value->is_string()) return invalid("/value", "must be a string");
    std::pair<std::string, std::string> out{std::string(ref->as_string()), std::string(value->as_string())};
    auto& s = value->as_string();
    OPENSSL_cleanse(s.data(), s.size());
    return out;
}

}  // namespace

void add_credential_routes(Api& api, credential::Store& store) {
    auto* s = &store;
    api.add_route("POST", "/api/v1/credentials", [s](const http::Request& r, const Params&) -> core::Result<Reply> {
        auto body = parse_set_body(r);
        if (!body) return body.error();
        auto out = s->set(body->first, body->second, actor_of(r));
        OPENSSL_cleanse(body->second.data(), body->second.size());
        if (!out) return out.error();
        return Reply{out->created ? 201 : 200,
                     json::object{{"credential", std::move(out->credential)}, {"created", out->created}}};
    });
    api.add_route("GET", "/api/v1/credentials", [s](const http::Request&, const Params&) -> core::Result<Reply> {
        auto list = s->list();
        if (!list) return list.error();
        return Reply{200, json::object{{"credentials", std::move(list).value()}}};
    });
    api.add_route("GET", "/api/v1/credentials/{ref}/exists", [s](const http::Request&, const Params& p) -> core::Result<Reply> {
        auto e = s->exists(p.at("ref"));
        if (!e) return e.error();
        return Reply{200, json::object{{"ref", p.at("ref")}, {"exists", *e}}};
    });
    api.add_route("GET", "/api/v1/credentials/{ref}", [s](const http::Request& r, const Params& p) -> core::Result<Reply> {
        auto value = s->read(p.at("ref"), actor_of(r));
        if (!value) return value.error();
        Reply reply{200, json::object{{"credential", json::object{{"ref", p.at("ref")}, {"value", *value}}}}};
        OPENSSL_cleanse(value->data(), value->size());
        return reply;
    });
    api.add_route("DELETE", "/api/v1/credentials/{ref}", [s](const http::Request& r, const Params& p) -> core::Result<Reply> {
        auto out = s->remove(p.at("ref"), actor_of(r));
        if (!out) return out.error();
        return Reply{200, json::object{{"deleted", std::move(out).value()}}};
    });
}

}  // namespace coffer::api
