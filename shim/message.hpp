// JSON-RPC messages as the shim sees them: a fast look at the top level of a message (kind, id,
// method) without building a DOM, and the few messages the shim writes itself.
#pragma once

#include <coffer/jsonrpc_codes.hpp>

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace coffer::shim {

enum class MsgKind {
    invalid,      // not a JSON object, or not a JSON-RPC shape we recognize (forwarded as is)
    request,      // method + id
    notification, // method, no id
    response,     // result or error, with an id (possibly null)
    batch,        // a JSON array
};

// What peek() found. `id` points into the scanned text.
struct Peek {
    MsgKind kind = MsgKind::invalid;
    std::string_view id;     // raw JSON text of the id (a string with its quotes, or a number); empty if none/null
    std::string method;      // the method, decoded; empty if none (or not a valid string)
    // The "id" member holds what no JSON-RPC id can be, as coffer-daemon reads ids: an object, an
    // array, a boolean, or a number that is not an integer within 64 bits (1.5, 1e3, 2^64). Only
    // set for a well-formed object.
    bool bad_id = false;
    bool null_id = false;    // "id": null
};

// One pass over the top-level members of `text` with the SDK's raw-JSON scanner (keys unescaped,
// the last of a duplicated key counts — as coffer-daemon reads it); nested values are skipped, not
// parsed. Tolerates (and classifies as invalid) any malformed input; never reads out of bounds.
Peek peek(std::string_view text);

// Removes raw CR and LF bytes. In JSON text they can only be insignificant whitespace (inside a
// string they must be escaped), so the message is unchanged while it becomes one stdio line.
void make_one_line(std::string& text);

// {"jsonrpc":"2.0","id":<id_raw>,"error":{"code":…,"message":…,"data":…}}; an empty id_raw
// gives "id":null; a null `data` is omitted.
std::string error_response(std::string_view id_raw, int code, std::string_view message,
                           const boost::json::value& data = nullptr);

// The value of an Mcp-Name / Mcp-Param-* header (MCP 2026-07-28 "Value Encoding"): the value as
// is when it is plain visible ASCII without leading/trailing blanks and does not look like the
// sentinel, else "=?base64?<base64 of the UTF-8 bytes>?=".
std::string header_safe_value(std::string_view value);

// JSON-RPC error codes the shim uses, named from the one table in the SDK (coffer/jsonrpc_codes.hpp).
namespace rpc_error {
inline constexpr int daemon_unavailable = jsonrpc::code::server_error;  // no daemon could be reached or started
inline constexpr int connection_lost = jsonrpc::code::connection_lost;  // the daemon went away mid-request
inline constexpr int bad_gateway = jsonrpc::code::bad_gateway;  // the daemon answered something that is not JSON-RPC
inline constexpr int invalid_request = jsonrpc::code::invalid_request;
inline constexpr int internal = jsonrpc::code::internal_error;
}  // namespace rpc_error

}  // namespace coffer::shim
