// Matching JSON-RPC ids (see ids.hpp).
#include "shim/ids.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace coffer::shim {
namespace json = boost::json;

std::string canonical_id(std::string_view raw) {
    boost::system::error_code ec;
    auto v = json::parse(raw, ec);
    return ec ? std::string(raw) : json::serialize(v);
}

bool same_id(std::string_view a, std::string_view b) { return a == b || canonical_id(a) == canonical_id(b); }

std::optional<std::string> cancelled_request_id(std::string_view body) {
    boost::system::error_code ec;
    json::value v = json::parse(body, ec);
    if (ec || !v.is_object()) return std::nullopt;
    auto* pv = v.get_object().if_contains("params");
    auto* rid = pv && pv->is_object() ? pv->get_object().if_contains("requestId") : nullptr;
    if (!rid) return std::nullopt;
    return json::serialize(*rid);
}

}  // namespace coffer::shim
