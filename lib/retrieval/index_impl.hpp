// The inside of an Index, shared by the files that implement it (index.cpp: sync and upkeep,
// search.cpp: the engines and freshness, embed_pending.cpp: embeddings). Not part of the API.
#pragma once

#include "retrieval/documents.hpp"
#include "retrieval/index.hpp"
#include "retrieval/sqlite.hpp"
#include "retrieval/vector_store.hpp"

#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace coffer::retrieval {

struct Index::Impl {
    std::unique_ptr<sql::Db> db;
    std::unique_ptr<DocumentWriter> writer;
    VectorStore vectors;
    std::int64_t data_version = -1;
    // collection → the model every one of its chunks had a vector of after the last
    // embed_pending; the next one then only looks at chunks written since (DocumentWriter).
    std::map<std::string, std::string> embedded;

    // Another connection (another process syncing the same file) wrote: cached vectors may be
    // stale. PRAGMA data_version changes exactly then.
    void notice_outside_writes();
    // Tells the vector store which documents the writer changed (also when a write failed: the
    // store rereads what the index holds, so over-reporting is harmless).
    void note_changes() {
        auto docs = writer->take_changed();
        if (!docs.empty()) collections.reset();
        vectors.changed(docs);
    }
    // The collections the index holds and their chunk counts (cached until a write or an
    // outside write).
    std::optional<std::map<std::string, std::int64_t>> collections;
    const std::map<std::string, std::int64_t>& held_collections();
    struct NoteChanges {
        Impl& impl;
        ~NoteChanges() { impl.note_changes(); }
    };
    // True while a sync runs: a search made between its batches must not refresh a file (the
    // sync's walk owns the documents map; a refreshed entry would look unseen and be removed).
    bool syncing = false;
    struct Syncing {
        Impl& impl;
        explicit Syncing(Impl& i) : impl(i) { impl.syncing = true; }
        ~Syncing() { impl.syncing = false; }
        Syncing(const Syncing&) = delete;
        Syncing& operator=(const Syncing&) = delete;
    };
    // What the documents table holds, per collection (path → id, mtime, size): loaded by the
    // first sync and then kept in step by every write, so a re-sync reads no rows for the files
    // whose stat did not change. Dropped on an outside write, and for a collection whose sync or
    // refresh failed part-way (a rolled-back batch).
    std::map<std::string, std::unordered_map<std::string, IndexedDocument>> documents;
    std::uint64_t sync_epoch = 0;
    std::unordered_map<std::string, IndexedDocument>& documents_of(const std::string& collection);
    struct ForgetDocumentsOnThrow {
        Impl& impl;
        const std::string& collection;
        int uncaught = std::uncaught_exceptions();
        ~ForgetDocumentsOnThrow() {
            if (std::uncaught_exceptions() > uncaught) impl.documents.erase(collection);
        }
    };
    // One file's rows made to agree with the disk (added, rewritten, touched or removed).
    void refresh_file(const Collection& c, const std::string& rel);

    // One run of the engines (search.cpp); freshness is Index::search's business.
    Answer answer(const Query& q, const std::vector<Collection>& roots, Embedder* embedder);
    // The hits whose file differs from what was indexed (or is gone), as "collection\npath"
    // keys; with `refresh`, those files are refreshed too.
    std::set<std::string> stale_files(const std::vector<Hit>& hits, const std::vector<Collection>& roots, bool refresh);
};

}  // namespace coffer::retrieval
