// The index file's schema: derived tables only (documents, chunks, an FTS5 table, vectors), its
// version in PRAGMA user_version, and the rule that a file of another version (or one that is
// not a database at all) is thrown away and rebuilt from the Markdown files, never migrated —
// except its vectors, which are carried over (they cost an embeddings call each to remake).
#pragma once

#include "retrieval/sqlite.hpp"

#include <filesystem>
#include <memory>

namespace coffer::retrieval {

// Bumped whenever a table, the chunker or the search-text segmentation changes: every one of
// them shapes what is stored, so an old file is simply rebuilt.
inline constexpr int kSchemaVersion = 2;  // 2: vectors as a rowid table, documents.chunks

// Opens `file` in WAL mode with the current schema; a file of another version is deleted (with
// its -wal and -shm) and created afresh, with the old file's vectors copied in. Throws Error(io) when the file cannot be opened.
std::unique_ptr<sql::Db> open_index(const std::filesystem::path& file);

}  // namespace coffer::retrieval
