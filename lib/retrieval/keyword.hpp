// The keyword engine: FTS5 bm25 with column weights (title 4, heading 2, body 1, set as the
// table's rank), over a MATCH expression built from the user's words (match_query.hpp): all
// words first, any non-stop word when that finds nothing. Score = -bm25, so higher is better.
#pragma once

#include "retrieval/ranked.hpp"
#include "retrieval/sqlite.hpp"

#include <string_view>
#include <vector>

namespace coffer::retrieval {

std::vector<Ranked> keyword_search(sql::Db& db, std::string_view user_text, const Scope& scope, std::size_t k);

}  // namespace coffer::retrieval
