// JSON that comes from outside the process (REST request bodies, the CLI's --config/--args),
// parsed strictly: UTF-8 only, bounded nesting, no object with the same key twice, and no number
// too large for a double.
// boost::json::parse keeps the last of duplicate keys, so `{"kind":"skill","kind":"mcp_server"}`
// would silently be an mcp_server; here it is refused with the key and where it is.
#pragma once

#include "core/result.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>

namespace coffer::core {

// Reasons in the error's details ("reason").
namespace json_problem {
inline constexpr std::string_view syntax = "syntax";
inline constexpr std::string_view invalid_utf8 = "invalid_utf8";
inline constexpr std::string_view too_deep = "too_deep";
inline constexpr std::string_view duplicate_key = "duplicate_key";
// A number beyond the range of a double (1e999): Boost.JSON would read it as infinity and write
// it back as `Infinity`, which is not JSON, so it could never be stored or echoed faithfully.
inline constexpr std::string_view number_out_of_range = "number_out_of_range";
}  // namespace json_problem

// The value, or a BAD_REQUEST error whose message is a clause for the caller to prefix
// ("duplicate key \"kind\" at /kind (byte 21)", "not valid UTF-8 at byte 3", "syntax error at
// byte 5: incomplete JSON", "nested deeper than 64 levels at byte 70", "number out of range at byte 9") and whose details are
// {"reason", "offset"} plus, for a duplicate key, "pointer" (RFC 6901, of the repeated member)
// and "key".
Result<boost::json::value> parse_strict_json(std::string_view text, std::size_t max_depth = 64);

}  // namespace coffer::core
