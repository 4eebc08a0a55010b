// The character classes the tokenizer needs, by Unicode code point: UTF-8 decoding that never
// fails (an invalid byte is one U+FFFD), CJK scripts, letters and digits, simple lower-casing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace coffer::toolsearch::cp {

inline constexpr char32_t kReplacement = 0xFFFD;

// The code point at s[i]; advances i past it (by one byte for an invalid sequence).
char32_t next(std::string_view s, std::size_t& i) noexcept;

// Han ideographs, Hiragana, Katakana, Hangul: text without spaces between words.
bool is_cjk(char32_t c) noexcept;
bool is_digit(char32_t c) noexcept;  // ASCII digits (fullwidth ones are folded to ASCII first)
// A letter of an alphabetic script (ASCII and beyond); CJK is apart.
bool is_letter(char32_t c) noexcept;
bool is_upper(char32_t c) noexcept;
char32_t lower(char32_t c) noexcept;
// Fullwidth ASCII variants (U+FF01..U+FF5E) to ASCII, the ideographic space to a space.
char32_t fold_width(char32_t c) noexcept;

}  // namespace coffer::toolsearch::cp
