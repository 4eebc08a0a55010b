// SeaTalk's callback signature: Signature = hex(sha256(raw_body ‖ signing_secret)) — a plain
// SHA-256 of the concatenation, not an HMAC — compared in constant time, before any parsing.
#pragma once

#include <string>
#include <string_view>

namespace coffer::callback {

std::string signature_of(std::string_view raw_body, std::string_view secret);
// True when `presented` (hex, either case) is the body's signature.
bool signature_ok(std::string_view raw_body, std::string_view secret, std::string_view presented);

}  // namespace coffer::callback
