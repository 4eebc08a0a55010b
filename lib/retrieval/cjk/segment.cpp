// CJK-aware segmentation (see segment.hpp).
#include "retrieval/cjk/segment.hpp"

#include <coffer/utf8.hpp>

#include <algorithm>

namespace coffer::retrieval::cjk {
namespace {

struct Cp {
    char32_t c;
    std::size_t at, len;  // byte offset and length in the source
};

// Decodes `text`; an invalid byte reads as U+FFFD (a separator), so nothing is dropped silently
// into a word and the output stays UTF-8.
std::vector<Cp> decode(std::string_view text) {
    std::vector<Cp> out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t n = utf8::sequence_length(text, i);
        if (n == 0) {
            out.push_back({0xFFFD, i, 1});
            ++i;
            continue;
        }
        out.push_back({utf8::decode(text, i, n), i, n});
        i += n;
    }
    return out;
}

// Symbols and punctuation outside ASCII that unicode61 treats as separators (general
// punctuation, arrows, maths, box drawing, dingbats, CJK punctuation, full-width punctuation,
// emoji); treating them as separators here keeps a quoted term from being empty for FTS5.
bool is_symbol(char32_t c) noexcept {
    return (c >= 0x80 && c <= 0xBF) || c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x2BFF) ||
           (c >= 0x3000 && c <= 0x303F) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF01 && c <= 0xFF0F) ||
           (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65) ||
           (c >= 0x1F000 && c <= 0x1FAFF) || c == 0xFFFD || c == 0xFEFF;
}

bool is_word(char32_t c) noexcept {
    if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return !is_symbol(c) && !is_cjk(c);
}

bool is_joiner(char32_t c) noexcept { return c == '.' || c == '-' || c == '_' || c == '\''; }

// The bigrams of one CJK run (and its last character alone), each appended through `add`.
template <typename Add>
void bigrams(std::string_view text, const std::vector<Cp>& cps, std::size_t from, std::size_t to, Add add) {
    auto piece = [&](std::size_t a, std::size_t b) {  // code points [a, b]
        return text.substr(cps[a].at, cps[b].at + cps[b].len - cps[a].at);
    };
    for (std::size_t k = from; k + 1 < to; ++k) add(piece(k, k + 1), false);
    add(piece(to - 1, to - 1), true);
}

}  // namespace

bool is_cjk(char32_t c) noexcept {
    return (c >= 0x3040 && c <= 0x30FF) ||    // Hiragana, Katakana
           (c >= 0x3400 && c <= 0x4DBF) ||    // CJK extension A
           (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK unified ideographs
           (c >= 0xAC00 && c <= 0xD7AF) ||    // Hangul syllables
           (c >= 0x1100 && c <= 0x11FF) ||    // Hangul jamo
           (c >= 0x3130 && c <= 0x318F) ||    // Hangul compatibility jamo
           (c >= 0xF900 && c <= 0xFAFF) ||    // compatibility ideographs
           (c >= 0x31F0 && c <= 0x31FF) ||    // Katakana extension
           (c >= 0x20000 && c <= 0x3FFFF);    // extensions B and later
}

std::string search_text(std::string_view text) {
    // Most text has no CJK at all: return it as it is.
    auto cps = decode(text);
    if (std::none_of(cps.begin(), cps.end(), [](const Cp& p) { return is_cjk(p.c); })) return std::string(text);
    std::string out;
    out.reserve(text.size() * 2);
    std::size_t i = 0;
    while (i < cps.size()) {
        if (!is_cjk(cps[i].c)) {
            out.append(text.substr(cps[i].at, cps[i].len));
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < cps.size() && is_cjk(cps[j].c)) ++j;
        bigrams(text, cps, i, j, [&](std::string_view piece, bool) {
            out += ' ';
            out.append(piece);
        });
        out += ' ';
        i = j;
    }
    return out;
}

std::vector<Term> query_terms(std::string_view query) {
    auto cps = decode(query);
    std::vector<Term> terms;
    auto add = [&](std::string_view t, bool prefix) {
        Term term{std::string(t), prefix};
        if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.push_back(std::move(term));
    };
    std::size_t i = 0;
    while (i < cps.size()) {
        if (is_cjk(cps[i].c)) {
            std::size_t j = i;
            while (j < cps.size() && is_cjk(cps[j].c)) ++j;
            if (j - i == 1) add(query.substr(cps[i].at, cps[i].len), true);
            else bigrams(query, cps, i, j, [&](std::string_view p, bool last) {
                if (!last) add(p, false);  // the trailing single character adds nothing to a ≥2 run
            });
            i = j;
            continue;
        }
        if (!is_word(cps[i].c)) {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j < cps.size() && (is_word(cps[j].c) || (is_joiner(cps[j].c) && j + 1 < cps.size() &&
                                                         is_word(cps[j + 1].c))))
            ++j;
        add(query.substr(cps[i].at, cps[j - 1].at + cps[j - 1].len - cps[i].at), false);
        i = j;
    }
    return terms;
}

}  // namespace coffer::retrieval::cjk
