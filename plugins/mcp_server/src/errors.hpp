// JSON-RPC errors this plugin produces for calls it cannot forward or that fail upstream.
// `data.reason` is a stable machine-readable word; the message is for people.
#pragma once

#include <coffer/jsonrpc_codes.hpp>
#include <coffer/mcp_reasons.hpp>

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace coffer::mcp_server {

namespace err {
// Named from the one table in the SDK (coffer/jsonrpc_codes.hpp).
inline constexpr int kUnavailable = jsonrpc::code::server_error;  // upstream down, exited, unhealthy, not installed
inline constexpr int kTimeout = jsonrpc::code::request_timeout;  // the per-call time limit passed
inline constexpr int kInternal = jsonrpc::code::internal_error;
inline constexpr int kCancelled = jsonrpc::code::request_cancelled;  // the client cancelled (the host discards the answer)
}  // namespace err

// Stable reasons in error.data.reason: the SDK's table (the gateway reads upstream_exited).
namespace reason = coffer::mcp_reason;

// {"code":…,"message":…,"data":{"reason":…, …extra}} as text.
inline std::string rpc_error(int code, std::string_view message, std::string_view why,
                             boost::json::object extra = {}) {
    extra["reason"] = why;
    return boost::json::serialize(
        boost::json::object{{"code", code}, {"message", message}, {"data", std::move(extra)}});
}

// A failure with a message and a reason, passed around before it becomes a JSON-RPC error.
struct Failure {
    int code = err::kUnavailable;
    std::string message;
    std::string why;
    boost::json::object extra;
    std::string text() const { return rpc_error(code, message, why, extra); }
};

}  // namespace coffer::mcp_server
