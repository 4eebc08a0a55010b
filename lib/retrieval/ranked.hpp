// What the keyword and vector engines return before hits are built: a chunk and the engine's
// own score (higher is better), best first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace coffer::retrieval {

struct Ranked {
    std::int64_t chunk_id = 0;
    double score = 0;
};

// Which documents a search may return: these collections, paths starting with the prefix.
struct Scope {
    std::vector<std::string> collections;
    std::string path_prefix;
    // Every chunk of the index is admitted (the collections are all the index holds and there is
    // no prefix): the keyword engine need not look up where each match lives.
    bool whole_index = false;
    // The collections hold a small part of the index: the keyword engine ranks within their own
    // rows rather than finding the best matches of the whole index and filtering.
    bool small = false;
    bool admits(const std::string& collection, const std::string& path) const;
};

}  // namespace coffer::retrieval
