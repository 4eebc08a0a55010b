// Word segmentation shared by indexing and querying, so both sides cut text the same way.
// SQLite's unicode61 tokenizer splits on spaces and punctuation, which leaves a run of Chinese,
// Japanese or Korean characters as one long "word" that no query ever equals. So CJK runs are
// rewritten as overlapping bigrams ("数据库" → "数据 据库"), plus the run's last character alone so
// that a one-character query can match by prefix; everything else passes through unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coffer::retrieval::cjk {

// Han, Hiragana, Katakana, Hangul (and their extensions).
bool is_cjk(char32_t c) noexcept;

// The text the FTS table indexes: `text` with every CJK run replaced by its bigrams.
std::string search_text(std::string_view text);

// A query word. `prefix`: a lone CJK character, matched as the start of an indexed bigram.
struct Term {
    std::string text;
    bool prefix = false;
    bool operator==(const Term&) const = default;
};

// The query's words in order, without duplicates: runs of letters and digits (joined by inner
// '.', '-', '_' or '\'', so "1.0.21" and "don't" stay one term), and CJK runs as bigrams.
// Punctuation, symbols and FTS operators are never part of a term.
std::vector<Term> query_terms(std::string_view query);

}  // namespace coffer::retrieval::cjk
