// Writing the derived rows of one document: its documents row, its chunks, their FTS rows. The
// only code that changes those tables, so the three always agree. Callers hold the transaction.
#pragma once

#include "retrieval/files.hpp"
#include "retrieval/sqlite.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace coffer::retrieval {

struct IndexedDocument {
    std::int64_t id = 0;
    std::int64_t mtime_ns = 0, size = 0;
    std::uint64_t seen = 0;  // the sync that last met its file (Index's cache of these rows)
};

// rel path → what the index holds, for one collection: what decides "changed?" first, from one
// covering index (documents_state); the content hash only for the files whose stat differs.
std::unordered_map<std::string, IndexedDocument> indexed_documents(sql::Db& db, const std::string& collection);
std::string indexed_sha256(sql::Db& db, std::int64_t id);

// The text an embedder sees for a chunk: the title and heading path give a short chunk its
// context. Its hash is chunks.embed_sha.
std::string embedding_input(const std::string& title, const std::string& heading, const std::string& text);

class DocumentWriter {
public:
    explicit DocumentWriter(sql::Db& db);
    // (Re)writes a document from its content; returns the number of chunks. written_id() is
    // then its documents row.
    std::size_t write(const std::string& collection, const FileInfo& file, const std::string& content,
                      const std::string& sha256);
    // The content is unchanged (same hash) but mtime or size moved: remember the new ones.
    void touch(std::int64_t id, const FileInfo& file);
    std::int64_t written_id() const { return changed_.empty() ? 0 : changed_.back(); }
    void remove(std::int64_t id);
    // Deletes the vectors of texts that were removed or rewritten since the last call and that
    // no chunk refers to any more. Only those hashes are checked, so a one-file edit stays cheap.
    void drop_orphan_vectors();

    // The documents written or removed since the last call (their vectors' rows are stale).
    std::vector<std::int64_t> take_changed() { return std::exchange(changed_, {}); }
    // The chunks written into `collection` since the last call, as (embed_sha, chunk id): the
    // only ones that can lack a vector once every older chunk has one. Not `complete` when there
    // were too many to keep a list of (a collection without embeddings never asks).
    struct Written {
        std::vector<std::pair<std::string, std::int64_t>> chunks;
        bool complete = true;
    };
    Written take_written(const std::string& collection);

private:
    void remove_chunks(std::int64_t doc_id);

    sql::Db& db_;
    sql::Stmt find_, insert_doc_, update_doc_, touch_, delete_doc_;
    sql::Stmt chunk_ids_, delete_chunks_, delete_fts_, insert_chunk_, insert_fts_, drop_vector_;
    std::vector<std::string> dropped_;  // embed_sha of chunks removed since drop_orphan_vectors
    std::vector<std::int64_t> changed_;
    std::unordered_map<std::string, Written> written_;
};

}  // namespace coffer::retrieval
