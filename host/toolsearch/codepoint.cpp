#include "toolsearch/codepoint.hpp"

#include <coffer/utf8.hpp>

namespace coffer::toolsearch::cp {

char32_t next(std::string_view s, std::size_t& i) noexcept {
    std::size_t n = utf8::sequence_length(s, i);
    if (n == 0) {  // not UTF-8: one byte, read as U+FFFD
        ++i;
        return kReplacement;
    }
    char32_t c = utf8::decode(s, i, n);
    i += n;
    return c;
}

bool is_cjk(char32_t c) noexcept {
    return (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK unified ideographs
           (c >= 0x3400 && c <= 0x4DBF) ||    // extension A
           (c >= 0x20000 && c <= 0x2FFFF) ||  // extensions B.. and compatibility supplement
           (c >= 0xF900 && c <= 0xFAFF) ||    // compatibility ideographs
           (c >= 0x3040 && c <= 0x30FF) ||    // Hiragana, Katakana
           (c >= 0x31F0 && c <= 0x31FF) ||    // Katakana phonetic extensions
           (c >= 0xFF66 && c <= 0xFF9F) ||    // halfwidth Katakana
           (c >= 0xAC00 && c <= 0xD7AF) ||    // Hangul syllables
           (c >= 0x1100 && c <= 0x11FF) ||    // Hangul Jamo
           (c >= 0x3130 && c <= 0x318F);      // Hangul compatibility Jamo
}

bool is_digit(char32_t c) noexcept { return c >= '0' && c <= '9'; }

bool is_letter(char32_t c) noexcept {
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (c < 0xC0 || c == 0xD7 || c == 0xF7) return false;  // Latin-1 symbols and punctuation
    if (c >= 0x2000 && c <= 0x2BFF) return false;          // punctuation, symbols, arrows, shapes
    if (c >= 0x3000 && c <= 0x303F) return false;          // CJK punctuation
    if (c >= 0xFE30 && c <= 0xFE4F) return false;          // CJK compatibility forms
    if (c >= 0xFF00 && c <= 0xFFEF) return false;          // what fold_width did not map
    if (c >= 0xD800 && c <= 0xF8FF) return false;          // surrogates, private use
    if (c >= 0x1F000) return c >= 0x20000 && c <= 0x3FFFF;  // emoji and symbols are not letters
    if (c == kReplacement) return false;
    return !is_cjk(c);
}

bool is_upper(char32_t c) noexcept {
    if (c < 0x80) return c >= 'A' && c <= 'Z';
    return lower(c) != c;
}

char32_t lower(char32_t c) noexcept {
    if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;                   // Latin-1
    if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
        // Latin Extended-A alternates upper/lower, with the parity shifting at U+0139..U+0148 and U+0179..U+017E.
        bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
        bool upper = odd_upper ? (c % 2 == 1) : (c % 2 == 0);
        return upper ? c + 1 : c;
    }
    if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 0x20;                // Greek
    if (c >= 0x410 && c <= 0x42F) return c + 0x20;                               // Cyrillic
    if (c >= 0x400 && c <= 0x40F) return c + 0x50;
    return c;
}

char32_t fold_width(char32_t c) noexcept {
    if (c >= 0xFF01 && c <= 0xFF5E) return c - 0xFF01 + 0x21;
    if (c == 0x3000) return ' ';
    return c;
}

}  // namespace coffer::toolsearch::cp
