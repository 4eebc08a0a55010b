// Word normalisation for English tokens: a small stopword list and a light stemmer that folds
// plurals and the -ing / -ed forms (and a final -e) so that "create", "creates", "creating" and
// "created" meet on one stem. Deliberately conservative: no suffix beyond those is touched.
#pragma once

#include <string>
#include <string_view>

namespace coffer::toolsearch {

// Lower-case ASCII words with no signal for tool choice ("the", "to", "please", …).
bool is_stopword(std::string_view lower_word) noexcept;

// The stem of a lower-case word. Words with digits or non-ASCII letters, and words of three
// letters or fewer, are returned unchanged.
std::string stem(std::string_view lower_word);

// CJK characters that are grammatical particles rather than content ("的", "了", "の", …):
// a CJK run is split at them before it is cut into bigrams.
bool is_cjk_particle(char32_t c) noexcept;
// Two-character filler words of requests ("一下", "如何", "可以", …), split out the same way.
bool is_cjk_filler(char32_t first, char32_t second) noexcept;

}  // namespace coffer::toolsearch
