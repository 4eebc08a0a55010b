// Matching JSON-RPC ids as the shim meets them: raw JSON text taken from a message, where two
// spellings of one value (`1` and `1.0`, or a string with and without escapes) are the same id.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace coffer::shim {

// Canonical text of a JSON id (the raw text itself when it does not parse).
std::string canonical_id(std::string_view raw);

// The same id, as written or as the same JSON value.
bool same_id(std::string_view a, std::string_view b);

// The requestId of a notifications/cancelled message, as JSON text; nullopt when it has none.
std::optional<std::string> cancelled_request_id(std::string_view body);

}  // namespace coffer::shim
