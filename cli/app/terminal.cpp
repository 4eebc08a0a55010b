// terminal_safe(): C0 controls, DEL, C1 controls, bidirectional embeddings/overrides/isolates and
// invalid UTF-8 written as escapes; all other text unchanged.
#include "app/terminal.hpp"

#include "core/utf8.hpp"

namespace coffer::cli {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// "\u202e": four lower-case hex digits (every code point shown this way is below U+10000).
std::string code_point_escape(char32_t cp) {
    std::string out = "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
    return out;
}

// U+202A..U+202E (LRE, RLE, PDF, LRO, RLO) and U+2066..U+2069 (LRI, RLI, FSI, PDI): they reorder
// what follows on the line, so text can display differently from what it is.
bool bidi_control(char32_t cp) { return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069); }

void ascii_control(std::string& out, unsigned char c, Layout layout) {
    if (layout == Layout::text && (c == '\n' || c == '\t')) {
        out += static_cast<char>(c);
        return;
    }
    switch (c) {
    case '\n': out += "\\n"; return;
    case '\t': out += "\\t"; return;
    case '\r': out += "\\r"; return;
    default: out += core::utf8::byte_escape(c);
    }
}

}  // namespace

std::string terminal_safe(std::string_view s, Layout layout) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7F) ascii_control(out, c, layout);
            else out += static_cast<char>(c);
            ++i;
            continue;
        }
        std::size_t n = core::utf8::sequence_length(s, i);
        if (n == 0) {
            out += core::utf8::byte_escape(c);
            ++i;
            continue;
        }
        char32_t cp = core::utf8::decode(s, i, n);
        if ((cp >= 0x80 && cp <= 0x9F) || bidi_control(cp)) out += code_point_escape(cp);
        else out.append(s, i, n);
        i += n;
    }
    return out;
}

}  // namespace coffer::cli
