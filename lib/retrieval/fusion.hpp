// Hybrid ranking: reciprocal rank fusion (k = 60) of the keyword and vector lists. The fused
// magnitude only orders the list; each fused entry carries the score of the engine that ranked
// it best, and that engine's name, because an RRF value (≈0.03) shown as a relevance misleads.
#pragma once

#include "retrieval/ranked.hpp"

#include <string>
#include <vector>

namespace coffer::retrieval {

// The k of reciprocal rank fusion: a list's item at rank r (from 1) adds 1 / (kRrfK + r).
inline constexpr double kRrfK = 60;

struct Fused {
    std::int64_t chunk_id = 0;
    double score = 0;    // the best-ranking engine's own score
    std::string engine;  // "keyword" or "vector"
    double rrf = 0;      // the fused value (ordering only)
};

// vector_weight scales the vector list's reciprocal ranks (1: the two lists count alike; below 1
// the vector engine only reorders what the keyword engine nearly agrees on).
std::vector<Fused> fuse_rrf(const std::vector<Ranked>& keyword, const std::vector<Ranked>& vector, std::size_t k,
                            double vector_weight = 1.0);

}  // namespace coffer::retrieval
