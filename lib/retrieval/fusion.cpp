// Reciprocal rank fusion (see fusion.hpp); Cormack, Clarke and Büttcher (2009), k = 60.
#include "retrieval/fusion.hpp"

#include <algorithm>
#include <unordered_map>

namespace coffer::retrieval {

std::vector<Fused> fuse_rrf(const std::vector<Ranked>& keyword, const std::vector<Ranked>& vector, std::size_t k,
                            double vector_weight) {
    std::vector<Fused> out;
    std::unordered_map<std::int64_t, std::size_t> at;
    std::unordered_map<std::int64_t, std::size_t> best_rank;
    auto add = [&](const std::vector<Ranked>& list, const char* engine, double weight) {
        for (std::size_t rank = 0; rank < list.size(); ++rank) {
            const Ranked& r = list[rank];
            auto [it, fresh] = at.try_emplace(r.chunk_id, out.size());
            if (fresh) {
                out.push_back({r.chunk_id, r.score, engine, 0});
                best_rank[r.chunk_id] = rank;
            } else if (rank < best_rank[r.chunk_id]) {  // ties stay with keyword, listed first
                out[it->second].score = r.score;
                out[it->second].engine = engine;
                best_rank[r.chunk_id] = rank;
            }
            out[it->second].rrf += weight / (kRrfK + static_cast<double>(rank + 1));
        }
    };
    add(keyword, "keyword", 1.0);
    add(vector, "vector", vector_weight);
    std::stable_sort(out.begin(), out.end(), [](const Fused& a, const Fused& b) { return a.rrf > b.rrf; });
    if (out.size() > k) out.resize(k);
    return out;
}

}  // namespace coffer::retrieval
