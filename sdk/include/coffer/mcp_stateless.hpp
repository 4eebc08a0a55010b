// The 2026-07-28 (stateless) revision's wire names and header-value encoding: the one home for
// what the gateway's downstream side (host/mcp) checks and the mcp_server plugin's upstream side
// writes. Header-only, no Coffer dependency beyond coffer/base64.hpp.
#pragma once

#include <coffer/base64.hpp>

#include <optional>
#include <string>
#include <string_view>

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

// A header value as the transport mirrors it: plain when it is printable ASCII without leading
// or trailing space and does not look like the sentinel itself, else `=?base64?…?=`.
inline std::string encode_header_value(std::string_view value) {
    constexpr std::string_view pre = "=?base64?", post = "?=";
    bool plain = !value.empty() && value.front() != ' ' && value.back() != ' ' && value.front() != '\t' &&
                 value.back() != '\t' && !(value.substr(0, pre.size()) == pre);
    for (char c : value)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) plain = false;
    if (plain || value.empty()) return std::string(value);
    return std::string(pre) + base64_encode(value) + std::string(post);
}

// The inverse: the sentinel form decoded (strict base64), plain values checked for printable
// ASCII. nullopt when the value is malformed.
inline std::optional<std::string> decode_header_value(std::string_view value) {
    constexpr std::string_view pre = "=?base64?", post = "?=";
    if (value.size() >= pre.size() + post.size() && value.substr(0, pre.size()) == pre &&
        value.substr(value.size() - post.size()) == post)
        return base64_decode(value.substr(pre.size(), value.size() - pre.size() - post.size()));
    for (char c : value)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) return std::nullopt;
    return std::string(value);
}

}  // namespace coffer::mcp_stateless
