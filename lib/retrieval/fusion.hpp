// Hybrid ranking: reciprocal rank fusion (k = 60) of the keyword and vector lists. The fused
// magnitude only orders the list; each fused entry carries the score of the engine that ranked
// it best, and that engine's name, because an RRF value (≈0.03) shown as a relevance misleads.
#pragma once

#include "retrieval/ranked.hpp"

#include <string>
#include <vector>

namespace coffer::retrieval {

struct Fused {
    std::int64_t chunk_id = 0;
    double score = 0;    // the best-ranking engine's own score
    std::string engine;  // "keyword" or "vector"
    double rrf = 0;      // the fused value (ordering only)
};

std::vector<Fused> fuse_rrf(const std::vector<Ranked>& keyword, const std::vector<Ranked>& vector, std::size_t k);

}  // namespace coffer::retrieval
