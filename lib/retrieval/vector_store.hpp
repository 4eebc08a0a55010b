// The vector engine: exact cosine similarity over the stored, normalised vectors of the queried
// collections only. Vectors are filtered by collection and path prefix before ranking, so a small
// collection inside a large index never comes back empty (the post-filter starvation of
// approximate KNN indexes).
//
// Each collection's vectors for one model live in memory as one contiguous float matrix plus int8
// codes of it, loaded on first use and then kept in step with the index: a document whose chunks
// or vectors changed is reread alone (changed()), not the whole collection. A search scores every
// admitted row on the int8 codes first (a quarter of the memory traffic), bounds each exact score
// from above and below with the quantisation errors, and computes the exact float cosine only for
// the rows whose upper bound reaches the k-th best lower bound; every other row provably ranks
// below k of those. The answer, scores included, is the one a full float scan gives.
#pragma once

#include "retrieval/huge_pages.hpp"
#include "retrieval/ranked.hpp"
#include "retrieval/sqlite.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace coffer::retrieval {

class VectorStore {
public:
    // Loads or rereads (changed()) the scope's collections for `model`; returns their rows.
    // Reads the index: the caller's thread.
    std::size_t prepare(sql::Db& db, const Scope& scope, const std::string& model);
    // Among the prepared collections, the rows of dimension `dim`.
    std::size_t rows_of_dimension(const Scope& scope, const std::string& model, std::size_t dim) const;
    // The top `k` chunks by cosine with `query` (normalised) among the prepared collections. Reads
    // no database, so it may run on another thread while the index is busy with something else,
    // as long as nothing else uses the store meanwhile.
    std::vector<Ranked> search(const Scope& scope, const std::string& model, const std::vector<float>& query,
                               std::size_t k);
    // prepare() and search() in one.
    std::vector<Ranked> search(sql::Db& db, const Scope& scope, const std::string& model,
                               const std::vector<float>& query, std::size_t k) {
        prepare(db, scope, model);
        return search(scope, model, query, k);
    }
    // How many vectors of `model` the collection has (loads it).
    std::size_t count(sql::Db& db, const std::string& collection, const std::string& model);
    // The stored dimension for the collection and model, 0 when none.
    int dimension(sql::Db& db, const std::string& collection, const std::string& model);
    // The model and row count of the collection's loaded vectors, if they are loaded (no I/O
    // beyond rereading changed documents).
    bool loaded(sql::Db& db, const std::string& collection, std::string& model, std::size_t& rows);

    // These documents were written, removed or got new vectors: their rows are reread when next
    // needed. Cheap; safe to over-report.
    void changed(const std::vector<std::int64_t>& doc_ids);
    void invalidate(const std::string& collection) { slices_.erase(collection); }
    void invalidate_all() { slices_.clear(); }

private:
    struct Doc {
        std::int64_t id = 0;
        std::string path;
        std::uint32_t first_row = 0, rows = 0;
        bool live = true;
    };
    struct Slice {
        std::string model;
        int dim = 0;
        std::size_t stride = 0;               // int8 codes per row: dim rounded up to 32
        std::vector<std::int64_t> chunk_ids;  // per row
        std::vector<std::uint32_t> doc_of;    // per row: index into docs
        std::vector<float, HugePageAllocator<float>> data;              // rows × dim, the stored vectors
        std::vector<std::int8_t, HugePageAllocator<std::int8_t>> codes;  // rows × stride
        std::vector<float> scale, error, norm;  // per row (vector_math.hpp, Quantised)
        std::vector<Doc> docs;
        std::unordered_map<std::int64_t, std::uint32_t> live_doc;  // document id → index into docs
        std::size_t dead_rows = 0;
        std::unordered_set<std::int64_t> pending;  // documents to reread
        std::size_t rows() const { return chunk_ids.size() - dead_rows; }
    };
    // Appends one row (a chunk with a vector of the slice's model and dimension) from a statement
    // whose columns are chunk id, document id, path, vector; rows of a document come together.
    static void append_row(sql::Stmt& st, std::int64_t& last_doc, Slice& s);
    Slice& slice(sql::Db& db, const std::string& collection, const std::string& model);
    // The prepared slice of `collection` for `model`, or null.
    const Slice* prepared(const std::string& collection, const std::string& model) const;
    void load(sql::Db& db, const std::string& collection, Slice& s);
    void reread(sql::Db& db, const std::string& collection, Slice& s);

    std::map<std::string, Slice> slices_;
    // Per-search scratch, kept to avoid allocating per query.
    std::vector<std::int32_t> dots_;
    std::vector<float> upper_, kth_;
    std::vector<char> allowed_;
    std::vector<std::int8_t> query_codes_;
};

}  // namespace coffer::retrieval
