// Regular expressions for "pattern" and "patternProperties": ECMAScript syntax via Boost.Regex.
//
// Boost.Regex rather than std::regex: libstdc++'s std::regex recurses once per input character
// and overflows the stack on strings of a few thousand characters, while Boost.Regex keeps its
// backtracking state on the heap with a bound and throws when a match gets too expensive.
// Matching is byte-wise: non-ASCII text is matched as UTF-8 bytes.
#pragma once

#include <boost/regex.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace coffer::schema::detail {

struct Pattern {
    std::string source;
    boost::regex re;
};

// Compiles `source` (ECMAScript: "^"/"$" anchor the whole string, "." does not match newlines).
// On failure returns nullopt and says why in `why`.
std::optional<Pattern> compile_pattern(std::string_view source, std::string& why);

// Unanchored search, as JSON Schema requires. nullopt when the match was too expensive to decide.
std::optional<bool> pattern_matches(const Pattern& pattern, std::string_view text) noexcept;

}  // namespace coffer::schema::detail
