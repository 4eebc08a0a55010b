// The derived index of one set of Markdown collections: one SQLite file holding documents (path,
// content hash, mtime, size), heading-aware chunks with line ranges, an FTS5 table and vectors.
// The files are the truth; deleting the index file and syncing again gives identical results.
// Not thread-safe: one thread uses an Index at a time (the owning plugin's worker thread).
#pragma once

#include "retrieval/embedder.hpp"
#include "retrieval/types.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace coffer::retrieval {

// A collection: a name (the knowledge base, or a memory scope such as "global" or
// "projects/<id>") and the folder whose Markdown files (*.md, *.markdown) it indexes.
struct Collection {
    std::string name;
    std::filesystem::path root;
};

struct SyncStats {
    std::size_t scanned = 0, added = 0, updated = 0, removed = 0, unchanged = 0, chunks = 0;
    double seconds = 0;
};

struct CollectionStats {
    std::size_t documents = 0, chunks = 0, vectors = 0, bytes = 0;
    std::string embedding_model;  // the model whose vectors are stored ("" when none)
};

// done/total files of a sync, called now and then (at most ~10 times a second).
using Progress = std::function<void(std::size_t done, std::size_t total)>;
// Called by a sync after each committed batch, on the sync's thread, while the index is consistent
// and no transaction is open: the one place where the caller may search (search, stats, check)
// in the middle of a sync. Nothing else may be called from it (no sync, refresh, drop or embed).
using BetweenBatches = std::function<void()>;

class Index {
public:
    // Opens the index file, creating it and its schema when missing (WAL, synchronous=NORMAL). A
    // file written by another schema version is rebuilt from the files, never migrated by hand.
    explicit Index(const std::filesystem::path& file);
    ~Index();
    Index(const Index&) = delete;
    Index& operator=(const Index&) = delete;

    // Makes the index agree with the folder: new and changed files (mtime and size differ, then
    // the content hash) re-chunked, vanished ones removed, unchanged ones left alone. Symlinks
    // that leave the root and hidden folders (.git, .obsidian) are skipped. One transaction per
    // batch of files, so a kill -9 leaves a consistent index that the next sync completes.
    // A search made from `between` sees the batches committed so far; it drops a hit whose file
    // changed since it was indexed rather than refreshing it (the sync owns the documents then).
    SyncStats sync(const Collection& c, const Progress& progress = {}, const BetweenBatches& between = {});
    // One file appeared, changed or vanished (after a write, or a change seen by a watcher).
    void refresh(const Collection& c, const std::string& rel_path);
    // Forgets everything of a collection.
    void drop(const std::string& collection);

    // Searches. Before answering, every hit's file is checked (mtime and size) against what was
    // indexed; a changed or vanished file is refreshed and the search runs again, so a hit never
    // points at text that is gone. `collections` gives the roots of q.collections (grep reads
    // the files; the others only the index). `embedder` may be null: vector and hybrid then
    // answer with keyword results and degraded=true.
    Answer search(const Query& q, const std::vector<Collection>& collections, Embedder* embedder);

    // Embeds every chunk of the collection that has no vector for embedder.model_id() (a model or
    // dimension change re-embeds everything), in batches; returns how many were embedded.
    std::size_t embed_pending(const std::string& collection, Embedder& embedder);

    CollectionStats stats(const std::string& collection);
    // What differs between the folder and the index (empty when they agree): one line per file.
    std::vector<std::string> check(const Collection& c);

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace coffer::retrieval
