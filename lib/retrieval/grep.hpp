// The grep engine: ripgrep over the collections' folders, as a subprocess (see spawn.hpp). The
// text is a literal (-F) unless the query asks for a regular expression; smart case; passed
// with -e so a pattern starting with '-' is never read as an option. Hits are matching lines
// (score 1), in path order; the index only adds each line's heading path and the title.
#pragma once

#include "retrieval/index.hpp"
#include "retrieval/sqlite.hpp"

#include <vector>

namespace coffer::retrieval {

std::vector<Hit> grep_search(sql::Db& db, const Query& q, const std::vector<Collection>& roots);

}  // namespace coffer::retrieval
