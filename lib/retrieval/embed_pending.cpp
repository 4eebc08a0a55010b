// Index::embed_pending: vectors for the chunks that have none for the embedder's model (see
// index.hpp). Vectors are keyed by the hash of the text embedded (chunks.embed_sha), so after an
// edit only the chunks whose text changed are pending; a different model id makes every chunk
// pending; a model that starts answering with another dimension replaces its old vectors.
//
// Finding the pending chunks of a large collection means a lookup per chunk, so it is done in
// full only once per collection and model (and after another process wrote the index); after
// that only the chunks written since the last call (DocumentWriter::take_written) are looked at.
#include "retrieval/documents.hpp"
#include "retrieval/index_impl.hpp"
#include "retrieval/vector_math.hpp"

#include <algorithm>
#include <unordered_set>

namespace coffer::retrieval {
namespace {

// Texts per embed() call and per transaction (the embedder splits them into its own batches).
constexpr std::size_t kPerCall = 128;
// Past this many new vectors the collection's in-memory vectors are reloaded whole rather than
// document by document.
constexpr std::size_t kNoteDocsMax = 1024;

using Pending = std::vector<std::pair<std::string, std::int64_t>>;  // (embed_sha, a chunk id with it)

// The chunks (one per distinct text hash) without a vector for `model`, listed once up front:
// asking again after every batch would rescan the collection each time.
Pending pending_chunks(sql::Db& db, const std::string& collection, const std::string& model) {
    sql::Stmt st(db,
                 "SELECT c.embed_sha, min(c.id) FROM chunks c JOIN documents d ON d.id = c.doc_id "
                 "WHERE d.collection = ?1 AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.sha = c.embed_sha AND "
                 "v.model = ?2) GROUP BY c.embed_sha ORDER BY min(c.id)");
    st.bind(1, collection).bind(2, model);
    Pending out;
    while (st.step()) out.emplace_back(st.text(0), st.int64(1));
    return out;
}

// The same, among the chunks written since the last call (the others all have vectors).
Pending pending_among(sql::Db& db, Pending written, const std::string& model) {
    std::sort(written.begin(), written.end());
    sql::Stmt has(db, "SELECT 1 FROM vectors WHERE sha = ? AND model = ?");
    sql::Stmt exists(db, "SELECT 1 FROM chunks WHERE id = ?");
    Pending out;
    for (std::size_t i = 0; i < written.size(); ++i) {
        if (i > 0 && written[i].first == written[i - 1].first) continue;  // the smallest id of a hash
        bool embedded = has.bind(1, written[i].first).bind(2, model).step();
        has.reset();
        bool alive = exists.bind(1, written[i].second).step();
        exists.reset();
        if (!embedded && alive) out.push_back(std::move(written[i]));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return out;
}

int stored_dimension(sql::Db& db, const std::string& model) {
    sql::Stmt st(db, "SELECT dim FROM vectors WHERE model = ? LIMIT 1");
    st.bind(1, model);
    return st.step() ? static_cast<int>(st.int64(0)) : 0;
}

bool other_models(sql::Db& db, const std::string& model) {
    sql::Stmt st(db, "SELECT EXISTS (SELECT 1 FROM vectors WHERE model < ?1) OR EXISTS (SELECT 1 FROM vectors WHERE model > ?1)");
    st.bind(1, model);
    return st.step() && st.int64(0) != 0;
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
    impl_->notice_outside_writes();
    auto written = impl_->writer->take_written(collection);
    auto known = impl_->embedded.find(collection);
    const bool incremental = written.complete && known != impl_->embedded.end() && known->second == model;
    impl_->embedded.erase(collection);  // until this call succeeds
    if (!incremental && other_models(db, model)) {
        // One vector space per collection: vectors of other models for its chunks are stale.
        sql::Transaction tx(db);
        sql::Stmt st(db,
                     "DELETE FROM vectors WHERE model <> ?1 AND sha IN (SELECT c.embed_sha FROM chunks c "
                     "JOIN documents d ON d.id = c.doc_id WHERE d.collection = ?2)");
        st.bind(1, model).bind(2, collection).run();
        tx.commit();
        if (db.changes() > 0) impl_->vectors.invalidate(collection);
    }

    std::size_t done = 0;
    bool replaced_dimension = false;
    // The documents whose chunks got vectors (in any collection: texts are shared) are reread
    // by the vector store, also when a later batch fails; many of them, and it reloads instead.
    std::unordered_set<std::string> new_shas;
    struct Report {
        Impl& impl;
        std::unordered_set<std::string>& shas;
        ~Report() {
            if (shas.size() > kNoteDocsMax) {
                impl.vectors.invalidate_all();
                return;
            }
            try {
                sql::Stmt docs(*impl.db, "SELECT DISTINCT doc_id FROM chunks WHERE embed_sha = ?");
                std::vector<std::int64_t> ids;
                for (const auto& sha : shas) {
                    docs.bind(1, sha);
                    while (docs.step()) ids.push_back(docs.int64(0));
                    docs.reset();
                }
                impl.vectors.changed(ids);
            } catch (const Error&) {
                impl.vectors.invalidate_all();
            }
        }
    } report{*impl_, new_shas};
    sql::Stmt insert(db, "INSERT OR REPLACE INTO vectors (sha, model, dim, vec) VALUES (?,?,?,?)");
    sql::Stmt text(db, "SELECT d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ?");
    // A pass embeds what was pending when it started; another pass runs only when the first was
    // cut short (another writer) or a dimension change dropped vectors it had not listed.
    for (bool first = true, again = true; again; first = false) {
        auto pending = first && incremental ? pending_among(db, std::move(written.chunks), model)
                                            : pending_chunks(db, collection, model);
        again = false;
        const bool replaced_before = replaced_dimension;
        for (std::size_t at = 0; at < pending.size(); at += kPerCall) {
            std::size_t end = std::min(pending.size(), at + kPerCall);
            std::vector<std::string> texts;
            for (std::size_t i = at; i < end; ++i) {
                text.bind(1, pending[i].second);
                if (text.step()) texts.push_back(embedding_input(text.text(0), text.text(1), text.text(2)));
                text.reset();
            }
            if (texts.size() != end - at) {  // changed underneath (another writer): list again
                again = true;
                break;
            }
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
                impl_->embedded.clear();
            }
            for (std::size_t i = 0; i < vecs.size(); ++i) {
                insert.bind(1, pending[at + i].first).bind(2, model).bind(3, dim);
                insert.bind_blob(4, vecs[i].data(), vecs[i].size() * sizeof(float)).run();
                if (new_shas.size() <= kNoteDocsMax) new_shas.insert(pending[at + i].first);
            }
            tx.commit();
            done += vecs.size();
        }
        again = again || replaced_dimension != replaced_before;
    }
    impl_->embedded[collection] = model;
    return done;
}

}  // namespace coffer::retrieval
