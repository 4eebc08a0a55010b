// UTF-8 well-formedness (Unicode table 3-7), decoding, and escaping of the bytes that are not.
#include "core/utf8.hpp"

namespace coffer::core::utf8 {

namespace {
bool in(unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; }
}  // namespace

std::size_t sequence_length(std::string_view s, std::size_t at) noexcept {
    if (at >= s.size()) return 0;
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
    const unsigned char b0 = byte(0);
    if (b0 < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (in(b0, 0xC2, 0xDF)) {
        n = 2;
    } else if (in(b0, 0xE0, 0xEF)) {
        n = 3;
        if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
        if (b0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (in(b0, 0xF0, 0xF4)) {
        n = 4;
        if (b0 == 0xF0) lo = 0x90;  // no overlong forms
        if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (s.size() - at < n) return 0;
    if (!in(byte(1), lo, hi)) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (!in(byte(k), 0x80, 0xBF)) return 0;
    return n;
}

char32_t decode(std::string_view s, std::size_t at, std::size_t length) noexcept {
    auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[at + k])); };
    switch (length) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default: return 0xFFFD;
    }
}

std::size_t first_invalid(std::string_view s) noexcept {
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

std::string byte_escape(unsigned char byte) {
    static constexpr char hex[] = "0123456789abcdef";
    return std::string{'\\', 'x', hex[byte >> 4], hex[byte & 0xF]};
}

std::string escape_invalid(std::string_view s) {
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

}  // namespace coffer::core::utf8
