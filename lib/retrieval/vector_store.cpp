// The in-memory exact vector search (see vector_store.hpp).
#include "retrieval/vector_store.hpp"

#include "retrieval/vector_math.hpp"

#include <algorithm>
#include <cstring>

namespace coffer::retrieval {

bool Scope::admits(const std::string& collection, const std::string& path) const {
    return std::find(collections.begin(), collections.end(), collection) != collections.end() &&
           path.compare(0, path_prefix.size(), path_prefix) == 0;
}

const VectorStore::Slice& VectorStore::slice(sql::Db& db, const std::string& collection, const std::string& model) {
    auto it = slices_.find(collection);
    if (it != slices_.end() && it->second.model == model) return it->second;
    Slice s;
    s.model = model;
    sql::Stmt st(db,
                 "SELECT c.id, d.id, d.path, v.vec FROM documents d JOIN chunks c ON c.doc_id = d.id "
                 "JOIN vectors v ON v.sha = c.embed_sha AND v.model = ?2 WHERE d.collection = ?1 "
                 "ORDER BY d.id, c.seq");
    st.bind(1, collection).bind(2, model);
    std::int64_t last_doc = -1;
    while (st.step()) {
        auto blob = st.blob(3);
        if (blob.empty() || blob.size() % sizeof(float) != 0) continue;
        int dim = static_cast<int>(blob.size() / sizeof(float));
        if (s.dim == 0) s.dim = dim;
        if (dim != s.dim) continue;  // mixed dimensions cannot be compared; embed_pending prevents them
        if (st.int64(1) != last_doc) {
            last_doc = st.int64(1);
            s.paths.push_back(st.text(2));
        }
        s.chunk_ids.push_back(st.int64(0));
        s.doc_of.push_back(static_cast<std::uint32_t>(s.paths.size() - 1));
        std::size_t at = s.data.size();
        s.data.resize(at + static_cast<std::size_t>(dim));
        std::memcpy(s.data.data() + at, blob.data(), blob.size());
    }
    return slices_[collection] = std::move(s);
}

std::size_t VectorStore::count(sql::Db& db, const std::string& collection, const std::string& model) {
    return slice(db, collection, model).chunk_ids.size();
}

int VectorStore::dimension(sql::Db& db, const std::string& collection, const std::string& model) {
    return slice(db, collection, model).dim;
}

std::vector<Ranked> VectorStore::search(sql::Db& db, const Scope& scope, const std::string& model,
                                        const std::vector<float>& query, std::size_t k) {
    std::vector<Ranked> all;
    for (const auto& name : scope.collections) {
        const Slice& s = slice(db, name, model);
        if (s.dim == 0 || static_cast<std::size_t>(s.dim) != query.size()) continue;
        // The filter comes first: which documents may answer, then only their rows are scored.
        std::vector<char> allowed(s.paths.size());
        for (std::size_t d = 0; d < s.paths.size(); ++d)
            allowed[d] = s.paths[d].compare(0, scope.path_prefix.size(), scope.path_prefix) == 0;
        const auto dim = static_cast<std::size_t>(s.dim);
        for (std::size_t r = 0; r < s.chunk_ids.size(); ++r)
            if (allowed[s.doc_of[r]])
                all.push_back({s.chunk_ids[r], dot(query.data(), s.data.data() + r * dim, dim)});
    }
    auto better = [](const Ranked& a, const Ranked& b) {
        return a.score != b.score ? a.score > b.score : a.chunk_id < b.chunk_id;
    };
    if (all.size() > k) {
        std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), better);
        all.resize(k);
    }
    std::sort(all.begin(), all.end(), better);
    return all;
}

}  // namespace coffer::retrieval
