// Checking a Query before anything runs: empty or oversized text, text that is not UTF-8, top_k
// outside 1..100, a collection the caller did not give a root for. Each is Error(invalid) with a
// message a person can act on; nothing has been touched when it is thrown.
#pragma once

#include "retrieval/index.hpp"

#include <vector>

namespace coffer::retrieval {

inline constexpr std::size_t kMaxQueryBytes = 4096;
inline constexpr int kMaxTopK = 100;

// The roots of q.collections, in the query's order (duplicates dropped).
std::vector<Collection> validate_query(const Query& q, const std::vector<Collection>& known);

}  // namespace coffer::retrieval
