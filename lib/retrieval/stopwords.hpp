// English stop words: the words a question is made of ("how do I …") that say nothing about
// what it is looking for. Dropped from the keyword engine's OR fallback only; the first, AND
// query keeps every word.
#pragma once

#include <string_view>

namespace coffer::retrieval {

// Case-insensitive for ASCII.
bool is_stop_word(std::string_view word) noexcept;

}  // namespace coffer::retrieval
