// FTS5 MATCH expressions built from a user's words, never from the raw text: every term is a
// double-quoted string, so a question mark, a quote, `*`, `-`, `NEAR(` or `AND` in a question
// is just a word (or nothing) and never FTS5 syntax. The keyword engine first asks for all terms
// (AND); when that finds nothing, for any of the terms that are not stop words (OR).
#pragma once

#include <string>
#include <string_view>

namespace coffer::retrieval {

struct MatchQueries {
    std::string all;  // "a" AND "b" AND "c"; empty when the query holds no term at all
    std::string any;  // "a" OR "c" (stop words dropped); empty when it would equal `all`
};

MatchQueries build_match(std::string_view user_text);

}  // namespace coffer::retrieval
