// Exact byte spans inside JSON text, so upstream results reach the client byte for byte (G-3):
// numbers, key order and escapes survive because nothing is re-serialized.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::mcp_server {

// True when `text` is one well-formed JSON document (validated without building a DOM).
bool valid_json(std::string_view text);

// The raw text of member `key` of the top-level object in `object_text` (first occurrence),
// or nullopt when the text is not an object or has no such member. Keys are compared after
// unescaping. The text is assumed to be well-formed JSON (parse it first); malformed input
// yields nullopt, never a read past the end.
std::optional<std::string_view> member_span(std::string_view object_text, std::string_view key);

// The raw text of each element of the top-level array in `array_text` (nullopt when not an array).
std::optional<std::vector<std::string_view>> array_elements(std::string_view array_text);

// `text` with the bytes of `span` (which must lie inside it) replaced by `replacement`.
std::string splice(std::string_view text, std::string_view span, std::string_view replacement);

}  // namespace coffer::mcp_server
