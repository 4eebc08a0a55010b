// Request framing rules checked on the head, before any body byte is read (RFC 9112 §6.1, §6.3):
// anything a proxy in front of the daemon could frame differently from the daemon is refused
// (400 and close), so a body can never be read as a second request.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::http {

struct Head {
    unsigned version = 11;  // 10 = HTTP/1.0, 11 = HTTP/1.1
    std::vector<std::pair<std::string_view, std::string_view>> fields;  // as received, in order
};

// Why the head must be refused, or nothing when its framing is unambiguous:
// - Transfer-Encoding other than exactly `chunked` (case-insensitive, optional whitespace), or
//   on an HTTP/1.0 request, or together with Content-Length;
// - Content-Length that is not a number, or several with different values;
// - more than one Host or more than one Origin field.
std::optional<std::string> framing_error(const Head& head);

}  // namespace coffer::http
