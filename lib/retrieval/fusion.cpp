// Reciprocal rank fusion (see fusion.hpp); Cormack, Clarke and Büttcher (2009), k = 60.
#include "retrieval/fusion.hpp"

#include <algorithm>
#include <unordered_map>

namespace coffer::retrieval {
namespace {
constexpr double kRrfK = 60;
}

std::vector<Fused> fuse_rrf(const std::vector<Ranked>& keyword, const std::vector<Ranked>& vector, std::size_t k) {
    std::vector<Fused> out;
    std::unordered_map<std::int64_t, std::size_t> at;
    std::unordered_map<std::int64_t, std::size_t> best_rank;
    auto add = [&](const std::vector<Ranked>& list, const char* engine) {
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
            out[it->second].rrf += 1.0 / (kRrfK + static_cast<double>(rank + 1));
        }
    };
    add(keyword, "keyword");
    add(vector, "vector");
    std::stable_sort(out.begin(), out.end(), [](const Fused& a, const Fused& b) { return a.rrf > b.rrf; });
    if (out.size() > k) out.resize(k);
    return out;
}

}  // namespace coffer::retrieval
