// Splits an answer into messages no longer than a platform allows, in the platform's own units
// (UTF-16 code units, code points or bytes, as the adapter declares), chosen by capability. It
// prefers paragraph boundaries, never cuts a UTF-8 sequence or a surrogate pair, and never leaves
// a code block open: a fenced block that must be split is closed at the end of one message and
// reopened (with its language) at the start of the next, so every message renders on its own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::channels {

enum class Units { utf16, codepoints, bytes };

// Units::codepoints for an unknown name.
Units units_from(std::string_view name);
// The length of `text` (UTF-8; a byte that is not UTF-8 counts as one unit).
std::size_t measure(std::string_view text, Units u);
// The chunks, each at most `max_units` long (max_units below 64 is treated as 64).
std::vector<std::string> chunk(std::string_view markdown, std::size_t max_units, Units u);

}  // namespace coffer::channels
