// The tokenizer shared by indexing and querying (SPEC G-24).
//
// Alphabetic text: words are runs of letters and digits; snake_case, kebab-case, dotted and `__`
// namespaced names fall apart at their separators; camelCase / PascalCase words and letter–digit
// boundaries are split too ("listPullRequests" → list, pull, request; "ec2" → ec, 2), and such a
// word is also kept whole ("GitHub" → git, hub, github), so either spelling matches. Everything is
// lower-cased, stopwords and single letters are dropped, and words are stemmed (stem.hpp).
//
// CJK text (Han, Kana, Hangul) has no spaces: a run is split at particles ("的", "の", …) and
// each piece gives its overlapping character bigrams, or the character itself when it stands alone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coffer::toolsearch {

// Appends the terms of `text` to `out`, in text order (duplicates kept: they are term frequencies).
void tokenize(std::string_view text, std::vector<std::string>& out);
std::vector<std::string> tokenize(std::string_view text);

}  // namespace coffer::toolsearch
