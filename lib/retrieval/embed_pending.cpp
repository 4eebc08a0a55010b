// Index::embed_pending: vectors for the chunks that have none for the embedder's model (see
// index.hpp). Vectors are keyed by the hash of the text embedded (chunks.embed_sha), so after an
// edit only the chunks whose text changed are pending; a different model id makes every chunk
// pending; a model that starts answering with another dimension replaces its old vectors.
#include "retrieval/documents.hpp"
#include "retrieval/index_impl.hpp"
#include "retrieval/vector_math.hpp"

#include <algorithm>

namespace coffer::retrieval {
namespace {

// Texts per embed() call and per transaction (the embedder splits them into its own batches).
constexpr std::size_t kPerCall = 128;

// The chunks (one per distinct text hash) without a vector for `model`, listed once up front:
// asking again after every batch would rescan the collection each time.
std::vector<std::pair<std::string, std::int64_t>> pending_chunks(sql::Db& db, const std::string& collection,
                                                                 const std::string& model) {
    sql::Stmt st(db,
                 "SELECT c.embed_sha, min(c.id) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                 "WHERE d.collection = ?1 AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.sha = c.embed_sha AND "
                 "v.model = ?2) GROUP BY c.embed_sha ORDER BY min(c.id)");
    st.bind(1, collection).bind(2, model);
    std::vector<std::pair<std::string, std::int64_t>> out;
    while (st.step()) out.emplace_back(st.text(0), st.int64(1));
    return out;
}

int stored_dimension(sql::Db& db, const std::string& model) {
    sql::Stmt st(db, "SELECT dim FROM vectors WHERE model = ? LIMIT 1");
    st.bind(1, model);
    return st.step() ? static_cast<int>(st.int64(0)) : 0;
}

void check_shape(std::vector<std::vector<float>>& vecs, std::size_t expected) {
    if (vecs.size() != expected)
        throw Error(Error::Code::invalid, "the embedder returned " + std::to_string(vecs.size()) + " vectors for " +
                                              std::to_string(expected) + " texts");
    for (auto& v : vecs) {
        if (v.empty() || v.size() != vecs.front().size())
            throw Error(Error::Code::invalid, "the embedder returned vectors of different dimensions");
        if (!normalise(v)) throw Error(Error::Code::invalid, "the embedder returned a zero vector");
    }
}

}  // namespace

std::size_t Index::embed_pending(const std::string& collection, Embedder& embedder) {
    auto& db = *impl_->db;
    const std::string model = embedder.model_id();
    {
        // One vector space per collection: vectors of other models for its chunks are stale.
        sql::Transaction tx(db);
        sql::Stmt st(db,
                     "DELETE FROM vectors WHERE model <> ?1 AND sha IN (SELECT c.embed_sha FROM chunks c "
                     "JOIN documents d ON d.id = c.doc_id WHERE d.collection = ?2)");
        st.bind(1, model).bind(2, collection).run();
        tx.commit();
    }
    impl_->vectors.invalidate(collection);

    std::size_t done = 0;
    bool replaced_dimension = false;
    sql::Stmt insert(db, "INSERT OR REPLACE INTO vectors (sha, model, dim, vec) VALUES (?,?,?,?)");
    sql::Stmt text(db, "SELECT d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ?");
    for (;;) {
        auto pending = pending_chunks(db, collection, model);
        if (pending.empty()) break;
        for (std::size_t at = 0; at < pending.size(); at += kPerCall) {
            std::size_t end = std::min(pending.size(), at + kPerCall);
            std::vector<std::string> texts;
            for (std::size_t i = at; i < end; ++i) {
                text.bind(1, pending[i].second);
                if (text.step()) texts.push_back(embedding_input(text.text(0), text.text(1), text.text(2)));
                text.reset();
            }
            if (texts.size() != end - at) break;  // changed underneath (another writer): list again
            auto vecs = embedder.embed(texts);
            check_shape(vecs, texts.size());
            const int dim = static_cast<int>(vecs.front().size());
            sql::Transaction tx(db);
            int stored = stored_dimension(db, model);
            if (stored != 0 && stored != dim) {
                // Same model name, another dimension (a server-side change): the old vectors
                // cannot be compared with the new ones, so they all go and are embedded again.
                if (replaced_dimension) throw Error(Error::Code::invalid, "the embedder keeps changing its dimension");
                replaced_dimension = true;
                sql::Stmt del(db, "DELETE FROM vectors WHERE model = ?");
                del.bind(1, model).run();
                impl_->vectors.invalidate_all();  // other collections of this model lost theirs too
            }
            for (std::size_t i = 0; i < vecs.size(); ++i) {
                insert.bind(1, pending[at + i].first).bind(2, model).bind(3, dim);
                insert.bind_blob(4, vecs[i].data(), vecs[i].size() * sizeof(float)).run();
            }
            tx.commit();
            done += vecs.size();
        }
        impl_->vectors.invalidate(collection);
    }
    return done;
}

}  // namespace coffer::retrieval
