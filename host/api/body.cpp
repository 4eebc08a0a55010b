// Strict JSON request bodies for every REST route (and the daemon's own routes beside them).
#include "api/body.hpp"

#include "core/strict_json.hpp"

#include <boost/json/object.hpp>

namespace coffer::api {

core::Result<boost::json::value> parse_body(const http::Request& r, bool allow_empty, std::size_t max_depth) {
    if (r.body.empty() && allow_empty) return boost::json::value(boost::json::object{});
    if (r.body.empty())
        return core::Error::make(core::code::bad_request, "request body is empty; send a JSON object");
    auto v = core::parse_strict_json(r.body, max_depth);
    if (!v) {
        core::Error e = std::move(v).error();
        e.message = "invalid JSON in the request body: " + e.message;
        return e;
    }
    return v;
}

}  // namespace coffer::api
