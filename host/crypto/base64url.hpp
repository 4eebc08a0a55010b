// URL-safe base64 (RFC 4648 section 5: '-' and '_' instead of '+' and '/'), as Fernet uses it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace coffer::crypto {

// Encodes with '=' padding (what other Fernet implementations emit).
std::string base64url_encode(std::string_view bytes);

// Decodes strictly: only the URL-safe alphabet, '=' padding only at the end (padding may be left
// out, but then the length must still describe whole bytes), nothing after the padding, and
// unused low bits of the last character must be zero. nullopt when the text is not such base64.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace coffer::crypto
