// The in-memory exact vector search (see vector_store.hpp).
#include "retrieval/vector_store.hpp"

#include "retrieval/vector_math.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace coffer::retrieval {
namespace {

// Row blocks scored at a time on the codes (the int32 results stay in L1).
constexpr std::size_t kBlock = 256;

// Bounds on what float arithmetic adds to a score: `dot` over ≤ 4,096 terms of normalised vectors
// is within 4096·2⁻²⁴ ≈ 2.5e-4 of the real value, and the approximate score's own float products
// within ~1e-6. The margin is per unit of ‖x‖·‖q‖.
constexpr float kFloatMargin = 5e-4f;

// More changed documents than this (or than an eighth of the collection) and rereading the
// collection whole is cheaper than rereading them one by one.
constexpr std::size_t kRereadMax = 512;

bool better(const Ranked& a, const Ranked& b) { return a.score != b.score ? a.score > b.score : a.chunk_id < b.chunk_id; }

}  // namespace

bool Scope::admits(const std::string& collection, const std::string& path) const {
    return std::find(collections.begin(), collections.end(), collection) != collections.end() &&
           path.compare(0, path_prefix.size(), path_prefix) == 0;
}

void VectorStore::changed(const std::vector<std::int64_t>& doc_ids) {
    for (auto& [name, s] : slices_) s.pending.insert(doc_ids.begin(), doc_ids.end());
}

void VectorStore::append_row(sql::Stmt& st, std::int64_t& last_doc, Slice& s) {
    auto& docs = s.docs;
    auto blob = st.blob(3);
    if (blob.empty() || blob.size() % sizeof(float) != 0) return;
    int dim = static_cast<int>(blob.size() / sizeof(float));
    if (s.dim == 0) {
        s.dim = dim;
        s.stride = (static_cast<std::size_t>(dim) + 31) / 32 * 32;
    }
    if (dim != s.dim) return;  // mixed dimensions cannot be compared; embed_pending prevents them
    const auto row = static_cast<std::uint32_t>(s.chunk_ids.size());
    if (st.int64(1) != last_doc) {
        last_doc = st.int64(1);
        docs.push_back({last_doc, st.text(2), row, 0, true});
        s.live_doc[last_doc] = static_cast<std::uint32_t>(docs.size() - 1);
    }
    ++docs.back().rows;
    s.chunk_ids.push_back(st.int64(0));
    s.doc_of.push_back(static_cast<std::uint32_t>(docs.size() - 1));
    const auto d = static_cast<std::size_t>(dim);
    s.data.resize(s.data.size() + d);  // reserved by load(); a blob need not be float-aligned
    std::memcpy(s.data.data() + s.data.size() - d, blob.data(), blob.size());
    s.codes.resize(s.codes.size() + s.stride, 0);
    auto q = quantise(s.data.data() + s.data.size() - d, d, s.codes.data() + s.codes.size() - s.stride);
    s.scale.push_back(q.scale);
    s.error.push_back(q.error);
    s.norm.push_back(q.norm);
}

void VectorStore::load(sql::Db& db, const std::string& collection, Slice& s) {
    std::string model = std::move(s.model);
    s = Slice{};
    s.model = std::move(model);
    // Sized once from the chunk count (an upper bound on the rows): growing 90 MB by doubling
    // costs more in page faults and copies than reading it.
    sql::Stmt size(db, "SELECT coalesce(sum(chunks), 0), (SELECT dim FROM vectors WHERE model = ?2 LIMIT 1) "
                       "FROM documents WHERE collection = ?1");
    size.bind(1, collection).bind(2, s.model);
    if (size.step() && !size.is_null(1)) {
        const auto rows = static_cast<std::size_t>(size.int64(0));
        const auto dim = static_cast<std::size_t>(size.int64(1));
        s.chunk_ids.reserve(rows);
        s.doc_of.reserve(rows);
        s.data.reserve(rows * dim);
        s.codes.reserve(rows * ((dim + 31) / 32 * 32));
        s.scale.reserve(rows);
        s.error.reserve(rows);
        s.norm.reserve(rows);
    }
    // Document by document (CROSS JOIN fixes the loop order, so a document's rows come together
    // and nothing is sorted; left to itself the planner walks vectors_model and sorts 90 MB).
    sql::Stmt st(db,
                 "SELECT c.id, d.id, d.path, v.vec FROM documents d CROSS JOIN chunks c ON c.doc_id = d.id "
                 "CROSS JOIN vectors v ON v.sha = c.embed_sha AND v.model = ?2 WHERE d.collection = ?1");
    st.bind(1, collection).bind(2, s.model);
    std::int64_t last_doc = -1;
    while (st.step()) append_row(st, last_doc, s);
}

void VectorStore::reread(sql::Db& db, const std::string& collection, Slice& s) {
    std::vector<std::int64_t> ids(s.pending.begin(), s.pending.end());
    s.pending.clear();
    std::sort(ids.begin(), ids.end());
    sql::Stmt st(db,
                 "SELECT c.id, d.id, d.path, v.vec FROM documents d CROSS JOIN chunks c ON c.doc_id = d.id "
                 "CROSS JOIN vectors v ON v.sha = c.embed_sha AND v.model = ?2 WHERE d.id = ?1 AND d.collection = ?3");
    for (auto id : ids) {
        if (auto it = s.live_doc.find(id); it != s.live_doc.end()) {
            Doc& d = s.docs[it->second];
            d.live = false;
            s.dead_rows += d.rows;
            s.live_doc.erase(it);
        }
        st.bind(1, id).bind(2, s.model).bind(3, collection);
        std::int64_t last_doc = -1;
        while (st.step()) append_row(st, last_doc, s);
        st.reset();
    }
    if (s.dead_rows < std::max<std::size_t>(4096, s.chunk_ids.size() / 4)) return;
    // Too many dead rows: copy the live ones into fresh arrays.
    Slice fresh;
    fresh.model = s.model;
    fresh.dim = s.dim;
    fresh.stride = s.stride;
    const auto dim = static_cast<std::size_t>(s.dim);
    for (const Doc& d : s.docs) {
        if (!d.live) continue;
        fresh.docs.push_back({d.id, d.path, static_cast<std::uint32_t>(fresh.chunk_ids.size()), d.rows, true});
        fresh.live_doc[d.id] = static_cast<std::uint32_t>(fresh.docs.size() - 1);
        for (std::uint32_t r = d.first_row; r < d.first_row + d.rows; ++r) {
            fresh.chunk_ids.push_back(s.chunk_ids[r]);
            fresh.doc_of.push_back(static_cast<std::uint32_t>(fresh.docs.size() - 1));
            fresh.data.insert(fresh.data.end(), s.data.begin() + r * dim, s.data.begin() + (r + 1) * dim);
            fresh.codes.insert(fresh.codes.end(), s.codes.begin() + r * s.stride, s.codes.begin() + (r + 1) * s.stride);
            fresh.scale.push_back(s.scale[r]);
            fresh.error.push_back(s.error[r]);
            fresh.norm.push_back(s.norm[r]);
        }
    }
    s = std::move(fresh);
}

VectorStore::Slice& VectorStore::slice(sql::Db& db, const std::string& collection, const std::string& model) {
    auto it = slices_.find(collection);
    if (it != slices_.end() && it->second.model == model) {
        Slice& s = it->second;
        if (s.pending.size() > std::max(kRereadMax, s.live_doc.size() / 8)) load(db, collection, s);
        else if (!s.pending.empty()) reread(db, collection, s);
        return s;
    }
    Slice& s = slices_[collection];
    s.model = model;
    load(db, collection, s);
    return s;
}

std::size_t VectorStore::count(sql::Db& db, const std::string& collection, const std::string& model) {
    return slice(db, collection, model).rows();
}

int VectorStore::dimension(sql::Db& db, const std::string& collection, const std::string& model) {
    const Slice& s = slice(db, collection, model);
    return s.rows() > 0 ? s.dim : 0;
}

bool VectorStore::loaded(sql::Db& db, const std::string& collection, std::string& model, std::size_t& rows) {
    auto it = slices_.find(collection);
    if (it == slices_.end()) return false;
    model = it->second.model;
    rows = slice(db, collection, model).rows();
    return true;
}

std::size_t VectorStore::prepare(sql::Db& db, const Scope& scope, const std::string& model) {
    std::size_t rows = 0;
    for (const auto& name : scope.collections) rows += slice(db, name, model).rows();
    return rows;
}

const VectorStore::Slice* VectorStore::prepared(const std::string& collection, const std::string& model) const {
    auto it = slices_.find(collection);
    if (it == slices_.end() || it->second.model != model || !it->second.pending.empty()) return nullptr;
    return &it->second;
}

std::size_t VectorStore::rows_of_dimension(const Scope& scope, const std::string& model, std::size_t dim) const {
    std::size_t rows = 0;
    for (const auto& name : scope.collections)
        if (const Slice* s = prepared(name, model); s && static_cast<std::size_t>(s->dim) == dim) rows += s->rows();
    return rows;
}

std::vector<Ranked> VectorStore::search(const Scope& scope, const std::string& model, const std::vector<float>& query,
                                        std::size_t k) {
    std::vector<const Slice*> slices;
    for (const auto& name : scope.collections) {
        const Slice* s = prepared(name, model);
        if (s && s->rows() > 0 && static_cast<std::size_t>(s->dim) == query.size()) slices.push_back(s);
    }
    std::vector<Ranked> out;
    if (slices.empty() || k == 0) return out;
    const std::size_t dim = query.size();
    const std::size_t stride = slices.front()->stride;

    // The query's codes and the two constants of the bound (vector_math.hpp):
    // |x·q − approx| ≤ ‖q̂‖·err(x) + err(q)·‖x‖, with q̂ = scale(q)·codes(q).
    query_codes_.assign(stride, 0);
    const Quantised qq = quantise(query.data(), dim, query_codes_.data());
    double qhat = 0;
    for (std::size_t i = 0; i < dim; ++i) qhat += static_cast<double>(query_codes_[i]) * query_codes_[i];
    const auto qhat_norm = static_cast<float>(std::sqrt(qhat) * qq.scale * (1 + 1e-6));
    const float margin = kFloatMargin * qq.norm;

    std::size_t total = 0;
    for (const Slice* s : slices) total += s->chunk_ids.size();
    upper_.assign(total, -std::numeric_limits<float>::infinity());
    dots_.resize(kBlock);
    kth_.clear();
    std::size_t base = 0;
    for (const Slice* s : slices) {
        // The filter comes first: which documents may answer; only their rows get bounds.
        allowed_.assign(s->docs.size(), 0);
        for (std::size_t d = 0; d < s->docs.size(); ++d)
            allowed_[d] = s->docs[d].live && s->docs[d].path.compare(0, scope.path_prefix.size(), scope.path_prefix) == 0;
        const std::size_t rows = s->chunk_ids.size();
        for (std::size_t at = 0; at < rows; at += kBlock) {
            const std::size_t n = std::min(kBlock, rows - at);
            dot_codes(query_codes_.data(), s->codes.data() + at * stride, stride, n, dots_.data());
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t r = at + i;
                if (!allowed_[s->doc_of[r]]) continue;
                const float approx = static_cast<float>(dots_[i]) * qq.scale * s->scale[r];
                const float slack = qhat_norm * s->error[r] + qq.error * s->norm[r] + margin * s->norm[r];
                upper_[base + r] = approx + slack;
                kth_.push_back(approx - slack);
            }
        }
        base += rows;
    }
    if (kth_.empty()) return out;
    // The k-th best lower bound: k rows score at least this, so a row whose upper bound is below
    // it cannot be among the top k.
    float threshold = -std::numeric_limits<float>::infinity();
    if (kth_.size() > k) {
        std::nth_element(kth_.begin(), kth_.begin() + static_cast<std::ptrdiff_t>(k - 1), kth_.end(), std::greater<>());
        threshold = kth_[k - 1];
    }
    base = 0;
    for (const Slice* s : slices) {
        const std::size_t rows = s->chunk_ids.size();
        for (std::size_t r = 0; r < rows; ++r) {
            const float up = upper_[base + r];
            if (up == -std::numeric_limits<float>::infinity() || up < threshold) continue;
            out.push_back({s->chunk_ids[r], dot(query.data(), s->data.data() + r * dim, dim)});
        }
        base += rows;
    }
    if (out.size() > k) {
        std::nth_element(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(), better);
        out.resize(k);
    }
    std::sort(out.begin(), out.end(), better);
    return out;
}

}  // namespace coffer::retrieval
