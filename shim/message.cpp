// peek() over the top level of a JSON-RPC message, and the messages the shim writes itself.
#include "shim/message.hpp"

#include <coffer/mcp_stateless.hpp>
#include <coffer/raw_json.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>

namespace coffer::shim {
namespace json = boost::json;

namespace {

// An integer as coffer-daemon takes an id: digits only (after an optional '-'), no fraction or
// exponent, within int64 (negative) or uint64.
bool integer_literal(std::string_view v) {
    if (v.empty()) return false;
    const char* first = v.data();
    const char* last = v.data() + v.size();
    if (v.front() == '-') {
        std::int64_t n = 0;
        auto r = std::from_chars(first, last, n);
        return r.ec == std::errc() && r.ptr == last;
    }
    std::uint64_t n = 0;
    auto r = std::from_chars(first, last, n);
    return r.ec == std::errc() && r.ptr == last;
}

}  // namespace

Peek peek(std::string_view s) {
    Peek p;
    auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return p;
    if (s[first] == '[') {
        p.kind = MsgKind::batch;
        return p;
    }
    // One pass, nothing copied; the last of a duplicated key counts, as coffer-daemon reads the
    // message (raw_json.hpp).
    std::array<std::optional<std::string_view>, 4> found;
    if (!raw_json::pick(s, std::array<std::string_view, 4>{"id", "method", "result", "error"}, found)) return p;
    const auto& id = found[0];
    const auto& method = found[1];
    const bool has_result = found[2] || found[3];
    std::optional<std::string> method_name;
    if (method) method_name = raw_json::decode_string(*method);
    if (id) {
        p.null_id = *id == "null";
        if (id->front() == '"' || integer_literal(*id)) p.id = *id;
        p.bad_id = p.id.empty() && !p.null_id;
    }
    if (method_name) {
        p.method = std::move(*method_name);
        p.kind = id && !p.id.empty() ? MsgKind::request : MsgKind::notification;
    } else if (has_result && id) {
        p.kind = MsgKind::response;
    }
    return p;
}

void make_one_line(std::string& text) {
    if (text.find_first_of("\r\n") == std::string::npos) return;
    text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }),
               text.end());
}

std::string error_response(std::string_view id_raw, int code, std::string_view message,
                           const json::value& data) {
    json::object err;
    err["code"] = code;
    err["message"] = message;
    if (!data.is_null()) err["data"] = data;
    std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
    out += id_raw.empty() ? std::string_view("null") : id_raw;
    out += ",\"error\":";
    out += json::serialize(err);
    out += '}';
    make_one_line(out);
    return out;
}

std::string header_safe_value(std::string_view v) { return mcp_stateless::encode_header_value(v); }

}  // namespace coffer::shim
