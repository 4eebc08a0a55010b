// 2026-07-28 (stateless) requests on Streamable HTTP: the per-request `_meta` protocol fields and
// the headers that mirror the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name), checked as the
// revision requires before anything runs.
#pragma once

#include "http/message.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/versions.hpp"

#include <coffer/mcp_stateless.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace coffer::mcp::modern {

using mcp_stateless::kCapabilitiesKey;
using mcp_stateless::kClientInfoKey;
using mcp_stateless::kLogLevelKey;
using mcp_stateless::kVersionKey;

struct Meta {
    Version version = kLatest;
    int log_level = -1;
    boost::json::object capabilities, client_info;
    std::string agent, cwd;  // coffer/agent, coffer/cwd
};

struct Refusal {
    int http_status = 400;
    int code = rpc::code::invalid_request;
    std::string message;
    boost::json::value data;
};

// True when the request speaks a stateless revision: the MCP-Protocol-Version header or the
// body's _meta names one.
bool is_modern_request(const http::Request& req, const rpc::Message& m);

std::variant<Meta, Refusal> check(const http::Request& req, const rpc::Message& m);

// A mirrored header value: plain ASCII, or the =?base64?…?= sentinel form decoded (strict base64:
// malformed base64 gives nullopt). The SDK's coffer/mcp_stateless.hpp, which the upstream side's
// encoder shares.
inline std::optional<std::string> decode_header(std::string_view value) { return mcp_stateless::decode_header_value(value); }

}  // namespace coffer::mcp::modern
