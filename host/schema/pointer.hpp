// RFC 6901 JSON pointers: building them token by token, and reading local "$ref" fragments.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::schema::detail {

// Appends "/" + token with "~" -> "~0" and "/" -> "~1".
void append_token(std::string& pointer, std::string_view token);
void append_index(std::string& pointer, std::size_t index);

// A pointer with one more token (convenience for building pointers in one expression).
std::string child_pointer(std::string_view pointer, std::string_view token);

// Parses a local reference such as "#", "#/$defs/port" or "#/definitions/a~1b" (URI fragment:
// percent-decoded, then RFC 6901 unescaped) into its reference tokens. On failure returns nullopt
// and says why in `why`.
std::optional<std::vector<std::string>> parse_local_ref(std::string_view ref, std::string& why);

}  // namespace coffer::schema::detail
