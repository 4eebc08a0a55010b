// UTF-8 for text that comes from outside the process: where it stops being well-formed, the code
// points it holds, and a readable form of the bytes that are not UTF-8 (`\xff`). Shared by the
// daemon (REST input and error bodies) and the CLI (what it prints to a terminal).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace coffer::core::utf8 {

// Length (1-4) of the well-formed UTF-8 sequence that starts at s[at], or 0 when none does: a
// stray continuation byte, an overlong form, a surrogate, a value above U+10FFFF, a sequence cut
// short, or `at` past the end (Unicode 15, table 3-7).
std::size_t sequence_length(std::string_view s, std::size_t at) noexcept;

// The code point of the well-formed sequence of `length` bytes at s[at] (see sequence_length).
char32_t decode(std::string_view s, std::size_t at, std::size_t length) noexcept;

// Offset of the first byte that does not start a well-formed sequence; npos when `s` is UTF-8.
std::size_t first_invalid(std::string_view s) noexcept;

// `s` with each byte outside a well-formed sequence written as the four characters \xNN
// (lower-case hex); well-formed text is returned unchanged.
std::string escape_invalid(std::string_view s);

// "\xNN" for one byte (lower-case hex).
std::string byte_escape(unsigned char byte);

}  // namespace coffer::core::utf8
