// UTF-8, decided once for every component (ADR 0027): where text stops being well-formed
// (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), the code
// points it holds, encoding a code point, and a readable form of the bytes that are not UTF-8
// (`\xff`). Header-only: the daemon (REST input, MCP messages), the CLI (what it prints to a
// terminal), tool search and the skill plugin (names, archive entries, SKILL.md) all use it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace coffer::utf8 {

namespace detail {
inline bool in(unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; }
}  // namespace detail

// Length (1-4) of the well-formed UTF-8 sequence that starts at s[at], or 0 when none does: a
// stray continuation byte, an overlong form, a surrogate, a value above U+10FFFF, a sequence cut
// short, or `at` past the end.
inline std::size_t sequence_length(std::string_view s, std::size_t at) noexcept {
    if (at >= s.size()) return 0;
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
    const unsigned char b0 = byte(0);
    if (b0 < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (detail::in(b0, 0xC2, 0xDF)) {
        n = 2;
    } else if (detail::in(b0, 0xE0, 0xEF)) {
        n = 3;
        if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
        if (b0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (detail::in(b0, 0xF0, 0xF4)) {
        n = 4;
        if (b0 == 0xF0) lo = 0x90;  // no overlong forms
        if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (s.size() - at < n) return 0;
    if (!detail::in(byte(1), lo, hi)) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (!detail::in(byte(k), 0x80, 0xBF)) return 0;
    return n;
}

// The code point of the well-formed sequence of `length` bytes at s[at] (see sequence_length).
inline char32_t decode(std::string_view s, std::size_t at, std::size_t length) noexcept {
    auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[at + k])); };
    switch (length) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default: return 0xFFFD;
    }
}

// Offset of the first byte that does not start a well-formed sequence; npos when `s` is UTF-8.
inline std::size_t first_invalid(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size()) {
        // ASCII runs are the common case.
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        std::size_t n = sequence_length(s, i);
        if (n == 0) return i;
        i += n;
    }
    return std::string_view::npos;
}

// "\xNN" for one byte (lower-case hex).
inline std::string byte_escape(unsigned char byte) {
    static constexpr char hex[] = "0123456789abcdef";
    return std::string{'\\', 'x', hex[byte >> 4], hex[byte & 0xF]};
}

// `s` with each byte outside a well-formed sequence written as the four characters \xNN
// (lower-case hex); well-formed text is returned unchanged.
inline std::string escape_invalid(std::string_view s) {
    std::size_t bad = first_invalid(s);
    if (bad == std::string_view::npos) return std::string(s);
    std::string out(s.substr(0, bad));
    std::size_t i = bad;
    while (i < s.size()) {
        std::size_t n = sequence_length(s, i);
        if (n == 0) {
            out += byte_escape(static_cast<unsigned char>(s[i]));
            ++i;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
    return out;
}


// True when `s` is well-formed UTF-8.
inline bool valid(std::string_view s) noexcept { return first_invalid(s) == std::string_view::npos; }

// The number of code points in well-formed UTF-8 text (continuation bytes are not counted).
inline std::size_t length(std::string_view s) noexcept {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

// The number of UTF-16 code units of well-formed UTF-8 text (a code point above U+FFFF, a 4-byte
// sequence, is a surrogate pair: two units) — how Telegram measures message lengths.
inline std::size_t utf16_length(std::string_view s) noexcept {
    std::size_t n = 0;
    for (unsigned char c : s) {
        if ((c & 0xC0) != 0x80) ++n;
        if ((c & 0xF8) == 0xF0) ++n;
    }
    return n;
}

// Where to cut `s` to at most `max` bytes without splitting a multi-byte sequence: `max` moved
// back to the start of the character it falls in (s.size() when `max` reaches past the end), so
// s.substr(0, cut_before(s, max)) keeps whole characters.
inline std::size_t cut_before(std::string_view s, std::size_t max) noexcept {
    if (max >= s.size()) return s.size();
    while (max > 0 && (static_cast<unsigned char>(s[max]) & 0xC0) == 0x80) --max;
    return max;
}

// At most `max` bytes of `s` in whole characters, with "…" after them when it was longer: a
// preview for a message or a listing.
inline std::string clip(std::string_view s, std::size_t max) {
    if (s.size() <= max) return std::string(s);
    return std::string(s.substr(0, cut_before(s, max))) + "…";
}

// Appends the UTF-8 encoding of code point `c` (a surrogate or a value above U+10FFFF is written
// as U+FFFD, so the output stays well-formed).
inline void append(std::string& out, char32_t c) {
    if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) c = 0xFFFD;
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

}  // namespace coffer::utf8
