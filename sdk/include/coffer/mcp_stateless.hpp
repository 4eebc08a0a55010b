// The 2026-07-28 (stateless) revision's wire names, header-value encoding and `x-mcp-header`
// annotations: the one home for what the gateway's downstream side (host/mcp) checks and the
// mcp_server plugin's upstream side writes. Header-only (Boost.JSON, coffer/base64.hpp).
#pragma once

#include <coffer/base64.hpp>

#include <boost/json.hpp>

#include <cctype>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::mcp_stateless {

// Request `_meta` members that replace the initialize handshake.
inline constexpr std::string_view kVersionKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kClientInfoKey = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view kLogLevelKey = "io.modelcontextprotocol/logLevel";
// Result `_meta` member naming the server; notification `_meta` member naming a subscription.
inline constexpr std::string_view kServerInfoKey = "io.modelcontextprotocol/serverInfo";
inline constexpr std::string_view kSubscriptionIdKey = "io.modelcontextprotocol/subscriptionId";

// Its error codes (-32020 … -32022) are in coffer/jsonrpc_codes.hpp.

namespace detail {
inline constexpr std::string_view kSentinelStart = "=?base64?", kSentinelEnd = "?=";
inline bool sentinel(std::string_view v) {
    return v.size() >= kSentinelStart.size() + kSentinelEnd.size() && v.substr(0, kSentinelStart.size()) == kSentinelStart &&
           v.substr(v.size() - kSentinelEnd.size()) == kSentinelEnd;
}
// RFC 9110 field-value characters: visible ASCII, space, horizontal tab.
inline bool field_char(unsigned char c) { return c == '\t' || (c >= 0x20 && c <= 0x7E); }
}  // namespace detail

// A header value as the Streamable HTTP transport mirrors it ("Value Encoding"): as is when it
// is field-value ASCII without leading or trailing blanks and does not look like the sentinel,
// else `=?base64?<base64 of the UTF-8 bytes>?=` — the empty string too, so an empty value is
// not a header some intermediary drops.
inline std::string encode_header_value(std::string_view value) {
    bool plain = !value.empty() && value.front() != ' ' && value.front() != '\t' && value.back() != ' ' &&
                 value.back() != '\t' && !detail::sentinel(value);
    for (unsigned char c : value)
        if (!detail::field_char(c)) plain = false;
    if (plain) return std::string(value);
    return std::string(detail::kSentinelStart) + base64_encode(value) + std::string(detail::kSentinelEnd);
}

// The inverse: the sentinel form decoded (strict base64), a plain value checked for field-value
// characters. nullopt when the value is malformed.
inline std::optional<std::string> decode_header_value(std::string_view value) {
    if (detail::sentinel(value))
        return base64_decode(value.substr(detail::kSentinelStart.size(),
                                          value.size() - detail::kSentinelStart.size() - detail::kSentinelEnd.size()));
    for (unsigned char c : value)
        if (!detail::field_char(c)) return std::nullopt;
    return std::string(value);
}

// One `x-mcp-header` annotation: the argument at `path` (a chain of `properties` keys) goes out
// as header `Mcp-Param-<name>`.
struct HeaderParam {
    std::vector<std::string> path;
    std::string name;
};

// The annotations of a tool's inputSchema, or why the tool is invalid (and must not be offered
// over HTTP): a name that is not an HTTP token, one used twice (case-insensitively), a property
// not of type string / integer / boolean, an annotation not reached through `properties` alone.
struct HeaderScan {
    std::vector<HeaderParam> params;
    std::string invalid;  // "" when the tool is valid
};

namespace detail {

inline bool http_token(std::string_view s) {
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (!std::isalnum(c) && std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos)
            return false;
    return true;
}

inline std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// `chain`: the node was reached from the root through `properties` keys only (`path` names them).
inline void walk(const boost::json::value& node, bool chain, std::vector<std::string>& path, HeaderScan& out,
                 std::set<std::string>& seen, int depth) {
    if (!out.invalid.empty() || depth > 64) return;
    if (const auto* arr = node.if_array()) {
        for (const auto& item : *arr) walk(item, false, path, out, seen, depth + 1);
        return;
    }
    const auto* obj = node.if_object();
    if (!obj) return;
    if (const auto* h = obj->if_contains("x-mcp-header")) {
        if (!chain || path.empty()) {
            out.invalid = "x-mcp-header is only allowed on a property reached through \"properties\" alone";
            return;
        }
        if (!h->is_string() || !http_token(h->as_string())) {
            out.invalid = "x-mcp-header of '" + path.back() + "' is not an HTTP header name";
            return;
        }
        std::string name(h->as_string());
        if (!seen.insert(lower(name)).second) {
            out.invalid = "x-mcp-header '" + name + "' is used twice";
            return;
        }
        const auto* type = obj->if_contains("type");
        std::string_view t = type && type->is_string() ? std::string_view(type->as_string()) : std::string_view();
        if (t != "string" && t != "integer" && t != "boolean") {
            out.invalid = "x-mcp-header '" + name + "' is on a property of type " + (t.empty() ? "(none)" : std::string(t)) +
                          "; only string, integer and boolean are allowed";
            return;
        }
        out.params.push_back({path, std::move(name)});
    }
    for (const auto& [key, value] : *obj) {
        if (key == "x-mcp-header") continue;
        if (key == "properties" && value.is_object()) {
            for (const auto& [prop, schema] : value.as_object()) {
                path.emplace_back(prop);
                walk(schema, chain, path, out, seen, depth + 1);
                path.pop_back();
            }
            continue;
        }
        walk(value, false, path, out, seen, depth + 1);
    }
}

}  // namespace detail

inline HeaderScan scan_headers(const boost::json::value& input_schema) {
    HeaderScan out;
    std::vector<std::string> path;
    std::set<std::string> seen;
    detail::walk(input_schema, true, path, out, seen, 0);
    if (!out.invalid.empty()) out.params.clear();
    return out;
}

// The header text of an argument value (encoded), or nullopt when it is not a string, boolean or
// integer in JavaScript's safe range.
inline std::optional<std::string> header_text(const boost::json::value& v) {
    constexpr std::int64_t kSafe = (std::int64_t{1} << 53) - 1;
    if (v.is_string()) return encode_header_value(v.as_string());
    if (v.is_bool()) return std::string(v.as_bool() ? "true" : "false");
    if (v.is_int64() && v.as_int64() >= -kSafe && v.as_int64() <= kSafe) return std::to_string(v.as_int64());
    if (v.is_uint64() && v.as_uint64() <= static_cast<std::uint64_t>(kSafe)) return std::to_string(v.as_uint64());
    return std::nullopt;
}

// {"Mcp-Param-<name>", encoded value} for every annotation whose argument is present.
inline std::vector<std::pair<std::string, std::string>> param_headers(const std::vector<HeaderParam>& params,
                                                                      const boost::json::value& arguments) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& h : params) {
        const boost::json::value* at = &arguments;
        for (const auto& key : h.path) {
            const auto* o = at ? at->if_object() : nullptr;
            at = o ? o->if_contains(key) : nullptr;
        }
        if (!at) continue;
        if (auto text = header_text(*at)) out.emplace_back("Mcp-Param-" + h.name, std::move(*text));
    }
    return out;
}

}  // namespace coffer::mcp_stateless
