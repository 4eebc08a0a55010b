// The vector engine: exact cosine similarity over the stored, normalised vectors of the queried
// collections only. Vectors are filtered by collection and path prefix before ranking, so a small
// collection inside a large index never comes back empty (the post-filter starvation of
// approximate KNN indexes). Each collection's vectors for one model are kept in memory, loaded
// on first use and dropped when the collection changes.
#pragma once

#include "retrieval/ranked.hpp"
#include "retrieval/sqlite.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace coffer::retrieval {

class VectorStore {
public:
    // The top `k` chunks by cosine with `query` (normalised, of the stored dimension).
    std::vector<Ranked> search(sql::Db& db, const Scope& scope, const std::string& model,
                               const std::vector<float>& query, std::size_t k);
    // How many vectors of `model` the collection has (loads it).
    std::size_t count(sql::Db& db, const std::string& collection, const std::string& model);
    // The stored dimension for the collection and model, 0 when none.
    int dimension(sql::Db& db, const std::string& collection, const std::string& model);

    void invalidate(const std::string& collection) { slices_.erase(collection); }
    void invalidate_all() { slices_.clear(); }

private:
    struct Slice {
        std::string model;
        int dim = 0;
        std::vector<std::int64_t> chunk_ids;  // per row
        std::vector<std::uint32_t> doc_of;    // per row: index into paths
        std::vector<std::string> paths;       // per document
        std::vector<float> data;              // rows × dim
    };
    const Slice& slice(sql::Db& db, const std::string& collection, const std::string& model);

    std::map<std::string, Slice> slices_;
};

}  // namespace coffer::retrieval
