// The excerpt shown with a hit: at most kSnippetBytes of the chunk, cut on UTF-8 boundaries,
// around the line that holds the most query terms (the chunk's start when none does).
#pragma once

#include <string>
#include <string_view>

namespace coffer::retrieval {

inline constexpr std::size_t kSnippetBytes = 300;

std::string make_snippet(std::string_view chunk_text, std::string_view query);

// `text` cut to at most `max` bytes without splitting a UTF-8 sequence (invalid bytes dropped).
std::string cut_utf8(std::string_view text, std::size_t max);

}  // namespace coffer::retrieval
