// Index: opening, sync, refresh, drop, stats and check (see index.hpp). Searching is in
// search.cpp, embedding in embed_pending.cpp.
#include "retrieval/index.hpp"

#include "retrieval/files.hpp"
#include "retrieval/index_impl.hpp"
#include "retrieval/schema.hpp"

#include <coffer/sha256.hpp>

#include <chrono>
#include <optional>

namespace coffer::retrieval {
namespace {

using clk = std::chrono::steady_clock;

// A sync commits after this many files or bytes, so a kill -9 loses at most one batch (which
// the next sync redoes: a document's row carries its new mtime only once its chunks are in).
constexpr std::size_t kBatchFiles = 500;
constexpr std::size_t kBatchBytes = 32 * 1024 * 1024;

// Calls `progress` at most ten times a second, and once at the end.
class Throttle {
public:
    explicit Throttle(const Progress& p) : p_(p) {}
    void tick(std::size_t done, std::size_t total, bool last = false) {
        if (!p_) return;
        auto now = clk::now();
        if (!last && now - at_ < std::chrono::milliseconds(100)) return;
        at_ = now;
        p_(done, total);
    }

private:
    const Progress& p_;
    clk::time_point at_{};
};

bool same_stat(const IndexedDocument& d, const FileInfo& f) { return d.mtime_ns == f.mtime_ns && d.size == f.size; }

}  // namespace

Index::Index(const std::filesystem::path& file) : impl_(std::make_unique<Impl>()) {
    impl_->db = open_index(file);
    impl_->writer = std::make_unique<DocumentWriter>(*impl_->db);
    impl_->notice_outside_writes();
}

Index::~Index() = default;

void Index::Impl::notice_outside_writes() {
    sql::Stmt st(*db, "PRAGMA data_version");
    std::int64_t v = st.step() ? st.int64(0) : 0;
    if (v != data_version) {
        vectors.invalidate_all();
        embedded.clear();
        collections.reset();
        documents.clear();
    }
    data_version = v;
}

const std::map<std::string, std::int64_t>& Index::Impl::held_collections() {
    if (!collections) {
        collections.emplace();
        sql::Stmt st(*db, "SELECT collection, sum(chunks) FROM documents GROUP BY collection");
        while (st.step()) collections->emplace(st.text(0), st.int64(1));
    }
    return *collections;
}

std::unordered_map<std::string, IndexedDocument>& Index::Impl::documents_of(const std::string& collection) {
    auto it = documents.find(collection);
    if (it == documents.end()) it = documents.emplace(collection, indexed_documents(*db, collection)).first;
    return it->second;
}

void Index::Impl::refresh_file(const Collection& c, const std::string& rel) {
    NoteChanges note{*this};
    ForgetDocumentsOnThrow forget{*this, c.name};
    auto info = stat_markdown(c.root, rel);
    auto& indexed = documents_of(c.name);
    auto found = indexed.find(rel);
    std::optional<IndexedDocument> doc;
    if (found != indexed.end()) doc = found->second;
    if (doc && info && same_stat(*doc, *info)) return;

    std::string content;
    if (info) {
        try {
            content = read_file(c.root / rel);
        } catch (const Error&) {
            info.reset();  // vanished or unreadable between stat and read: as good as gone
        }
    }
    sql::Transaction tx(*db);
    std::optional<IndexedDocument> now;
    if (!info) {
        if (doc) writer->remove(doc->id);
    } else {
        std::string sha = sha256_hex(content);
        if (doc && indexed_sha256(*db, doc->id) == sha) {
            writer->touch(doc->id, *info);
            now = IndexedDocument{doc->id, info->mtime_ns, info->size};
        } else {
            writer->write(c.name, *info, content, sha);
            now = IndexedDocument{writer->written_id(), info->mtime_ns, info->size};
        }
    }
    writer->drop_orphan_vectors();
    tx.commit();
    if (now) indexed[rel] = *now;
    else indexed.erase(rel);
}

SyncStats Index::sync(const Collection& c, const Progress& progress, const BetweenBatches& between) {
    auto t0 = clk::now();
    auto& db = *impl_->db;
    impl_->notice_outside_writes();
    Impl::NoteChanges note{*impl_};
    Impl::Syncing syncing{*impl_};
    Impl::ForgetDocumentsOnThrow forget{*impl_, c.name};
    SyncStats s;
    auto files = scan_markdown(c.root);
    auto& indexed = impl_->documents_of(c.name);
    const std::uint64_t epoch = ++impl_->sync_epoch;
    s.scanned = files.size();
    Throttle throttle(progress);

    std::optional<sql::Transaction> tx;
    std::size_t batch_files = 0, batch_bytes = 0;
    auto in_batch = [&] {
        if (!tx) tx.emplace(db);
    };
    for (std::size_t i = 0; i < files.size(); ++i) {
        const FileInfo& f = files[i];
        throttle.tick(i, files.size());
        auto it = indexed.find(f.rel);
        if (it != indexed.end() && same_stat(it->second, f)) {
            ++s.unchanged;
            it->second.seen = epoch;
            continue;
        }
        std::string content;
        try {
            content = read_file(c.root / f.rel);
        } catch (const Error&) {
            continue;  // vanished since the walk: not seen, so removed below
        }
        std::string sha = sha256_hex(content);
        in_batch();
        if (it != indexed.end() && indexed_sha256(db, it->second.id) == sha) {
            impl_->writer->touch(it->second.id, f);
            ++s.unchanged;
        } else {
            s.chunks += impl_->writer->write(c.name, f, content, sha);
            ++(it != indexed.end() ? s.updated : s.added);
            if (it == indexed.end()) it = indexed.emplace(f.rel, IndexedDocument{}).first;
            it->second.id = impl_->writer->written_id();
        }
        it->second.mtime_ns = f.mtime_ns;
        it->second.size = f.size;
        it->second.seen = epoch;
        batch_bytes += content.size();
        if (++batch_files >= kBatchFiles || batch_bytes >= kBatchBytes) {
            tx->commit();
            tx.reset();
            batch_files = batch_bytes = 0;
            throttle.tick(i + 1, files.size(), true);  // a batch is durable: always worth reporting
            if (between) {
                impl_->note_changes();  // the vector store learns the batch before anyone searches it
                between();
            }
        }
    }
    for (auto it = indexed.begin(); it != indexed.end();) {
        if (it->second.seen == epoch) {
            ++it;
            continue;
        }
        in_batch();
        impl_->writer->remove(it->second.id);
        ++s.removed;
        it = indexed.erase(it);
    }
    if (s.updated + s.removed > 0) {
        in_batch();
        impl_->writer->drop_orphan_vectors();
    }
    if (tx) tx->commit();
    tx.reset();
    throttle.tick(files.size(), files.size(), true);
    s.seconds = std::chrono::duration<double>(clk::now() - t0).count();
    return s;
}

void Index::refresh(const Collection& c, const std::string& rel_path) {
    if (!indexable_path(rel_path))
        throw Error(Error::Code::invalid, "not a Markdown file inside the collection: " + rel_path);
    impl_->notice_outside_writes();
    impl_->refresh_file(c, rel_path);
}

void Index::drop(const std::string& collection) {
    auto& db = *impl_->db;
    sql::Transaction tx(db);
    for (const auto& [rel, doc] : indexed_documents(db, collection)) impl_->writer->remove(doc.id);
    impl_->writer->drop_orphan_vectors();
    tx.commit();
    impl_->note_changes();
    impl_->writer->take_written(collection);
    impl_->vectors.invalidate(collection);
    impl_->embedded.erase(collection);
    impl_->documents.erase(collection);
}

CollectionStats Index::stats(const std::string& collection) {
    auto& db = *impl_->db;
    impl_->notice_outside_writes();
    CollectionStats s;
    sql::Stmt docs(db, "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(chunks), 0) FROM documents WHERE collection = ?");
    docs.bind(1, collection);
    if (docs.step()) {
        s.documents = static_cast<std::size_t>(docs.int64(0));
        s.bytes = static_cast<std::size_t>(docs.int64(1));
        s.chunks = static_cast<std::size_t>(docs.int64(2));
    }
    // The vectors in memory agree with the index (they are kept in step with every write), and
    // counting them there saves a lookup per chunk.
    std::string model;
    std::size_t rows = 0;
    if (impl_->vectors.loaded(db, collection, model, rows) && rows > 0) {
        s.embedding_model = model;
        s.vectors = rows;
        return s;
    }
    // The model with the most vectors among this collection's chunks is "the" model.
    sql::Stmt vec(db,
                  "SELECT v.model, count(*) AS n FROM chunks c JOIN documents d ON d.id = c.doc_id "
                  "JOIN vectors v ON v.sha = c.embed_sha WHERE d.collection = ? GROUP BY v.model ORDER BY n DESC LIMIT 1");
    vec.bind(1, collection);
    if (vec.step()) {
        s.embedding_model = vec.text(0);
        s.vectors = static_cast<std::size_t>(vec.int64(1));
    }
    return s;
}

std::vector<std::string> Index::check(const Collection& c) {
    auto files = scan_markdown(c.root);
    auto indexed = indexed_documents(*impl_->db, c.name);
    std::vector<std::string> out;
    for (const auto& f : files) {
        auto it = indexed.find(f.rel);
        if (it == indexed.end()) {
            out.push_back("not indexed: " + f.rel);
            continue;
        }
        if (!same_stat(it->second, f)) {
            std::string sha;
            try {
                sha = sha256_hex(read_file(c.root / f.rel));
            } catch (const Error&) {
            }
            if (sha != indexed_sha256(*impl_->db, it->second.id)) out.push_back("changed: " + f.rel);
        }
        indexed.erase(it);
    }
    for (const auto& [rel, doc] : indexed) out.push_back("gone from the folder: " + rel);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace coffer::retrieval
