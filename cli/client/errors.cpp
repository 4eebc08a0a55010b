#include "client/errors.hpp"

#include "client/codes.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <string>

namespace coffer::client {
namespace json = boost::json;

std::string_view code_for_status(int s) {
    switch (s) {
    case 400: return core::code::bad_request;
    case 401: return core::code::unauthorized;
    case 403: return core::code::forbidden;
    case 404: return core::code::not_found;
    case 409: return core::code::conflict;
    case 413: return core::code::payload_too_large;
    case 501: return core::code::unsupported;
    case 502: return core::code::plugin_error;
    case 503: return core::code::unavailable;
    default: return s >= 500 ? core::code::internal : code::bad_response;
    }
}

core::Error error_from_json(int http_status, const json::value& body) {
    if (const auto* o = body.if_object()) {
        if (const auto* e = o->if_contains("error"); e && e->is_object()) {
            const auto& eo = e->get_object();
            core::Error err;
            if (auto* c = eo.if_contains("code"); c && c->is_string())
                err.code = std::string(c->get_string());
            else
                err.code = std::string(code_for_status(http_status));
            if (auto* m = eo.if_contains("message"); m && m->is_string())
                err.message = std::string(m->get_string());
            else
                err.message = "the daemon answered HTTP " + std::to_string(http_status);
            if (auto* d = eo.if_contains("details")) err.details = *d;
            return err;
        }
    }
    return core::Error::make(code_for_status(http_status),
                             "the daemon answered HTTP " + std::to_string(http_status) +
                                 " without an error envelope");
}

core::Error parse_error_envelope(int http_status, std::string_view body) {
    boost::system::error_code ec;
    json::value v = json::parse(body, ec);
    if (ec) v = nullptr;
    return error_from_json(http_status, v);
}

json::value error_envelope(const core::Error& error) {
    json::object e;
    e["code"] = error.code;
    e["message"] = error.message;
    if (!error.details.is_null()) e["details"] = error.details;
    json::object root;
    root["error"] = std::move(e);
    return root;
}

}  // namespace coffer::client
