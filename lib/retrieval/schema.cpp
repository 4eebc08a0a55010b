// Creating (or recreating) the index file; see schema.hpp.
#include "retrieval/schema.hpp"

#include <string>
#include <system_error>

namespace coffer::retrieval {
namespace {

// documents: one row per Markdown file, with what decides "changed?" (mtime, size, hash).
// chunks: heading-aware pieces with 1-based line ranges; embed_sha is the hash of the text an
//   embedder sees (title, heading path, body), so a chunk whose text survives an edit keeps its
//   vector and identical chunks are embedded once.
// fts: the keyword engine's table; rowid = chunks.id; body is the derived search text (CJK runs
//   as bigrams, see cjk/segment.hpp).
// vectors: one normalised float32 vector per embedded text and model id. A rowid table: a 1.5 KB
//   vector fits in a table leaf, where a WITHOUT ROWID row that large spills to an overflow page
//   per vector (the file was 4x the corpus and each lookup read two pages). vectors_model finds
//   "any vectors of another model?" and a model's dimension without a scan.
// chunks_doc carries embed_sha: loading a collection's vectors and counting them read the index,
//   not the chunks' text.
// documents.chunks: how many chunks the document has, so statistics need not count chunks.
// documents_state covers what a sync compares (and the statistics sum): a re-sync of 10,000
//   unchanged files reads one index, not 10,000 rows.
constexpr const char* kCreate = R"sql(
CREATE TABLE documents (
  id INTEGER PRIMARY KEY,
  collection TEXT NOT NULL,
  path TEXT NOT NULL,
  title TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL,
  size INTEGER NOT NULL,
  chunks INTEGER NOT NULL DEFAULT 0,
  UNIQUE (collection, path)
);
CREATE INDEX documents_state ON documents (collection, path, mtime_ns, size, sha256, chunks);
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  doc_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  heading TEXT NOT NULL,
  line_from INTEGER NOT NULL,
  line_to INTEGER NOT NULL,
  text TEXT NOT NULL,
  embed_sha TEXT NOT NULL
);
CREATE INDEX chunks_doc ON chunks (doc_id, seq, embed_sha);
CREATE INDEX chunks_embed ON chunks (embed_sha);
CREATE VIRTUAL TABLE fts USING fts5 (title, heading, body, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO fts (fts, rank) VALUES ('rank', 'bm25(4.0, 2.0, 1.0)');
CREATE TABLE vectors (
  id INTEGER PRIMARY KEY,
  sha TEXT NOT NULL,
  model TEXT NOT NULL,
  dim INTEGER NOT NULL,
  vec BLOB NOT NULL,
  UNIQUE (sha, model)
);
CREATE INDEX vectors_model ON vectors (model, dim);
)sql";

void remove_files(const std::filesystem::path& file) {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(file.string() + suffix, ec);
}

int user_version(sql::Db& db) {
    sql::Stmt st(db, "PRAGMA user_version");
    return st.step() ? static_cast<int>(st.int64(0)) : 0;
}

bool has_tables(sql::Db& db) {
    sql::Stmt st(db, "SELECT count(*) FROM sqlite_master");
    return st.step() && st.int64(0) > 0;
}

// Opens and checks the version; nullptr when the file must be rebuilt. Throws when it cannot be
// opened at all; a file that is not a database ("file is not a database") reads as a rebuild.
std::unique_ptr<sql::Db> try_open(const std::filesystem::path& file) {
    auto db = std::make_unique<sql::Db>(file);
    try {
        db->exec("PRAGMA journal_mode = WAL");
        db->exec("PRAGMA synchronous = NORMAL");
        int v = user_version(*db);
        if (v == kSchemaVersion) return db;
        if (v == 0 && !has_tables(*db)) {
            sql::Transaction tx(*db);
            db->exec(kCreate);
            db->exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
            tx.commit();
            return db;
        }
    } catch (const Error&) {
        int code = sqlite3_extended_errcode(db->handle()) & 0xff;
        if (code != SQLITE_NOTADB && code != SQLITE_CORRUPT) throw;
    }
    return nullptr;
}

// Vectors are the one derived table that costs money to rebuild (an embeddings call per chunk),
// and they are keyed by what no schema version has changed: the hash of the embedded text and the
// model id. So a file of another version hands its vectors to the new one; a sync then finds
// them for every chunk whose text is the same. Anything unexpected, and they are simply dropped.
void carry_vectors(sql::Db& db, const std::filesystem::path& old_file) {
    try {
        sql::Stmt attach(db, "ATTACH DATABASE ? AS old");
        attach.bind(1, old_file.string()).run();
        try {
            sql::Transaction tx(db);
            db.exec("INSERT OR IGNORE INTO main.vectors (sha, model, dim, vec) SELECT sha, model, dim, vec FROM old.vectors");
            tx.commit();
        } catch (const Error&) {
        }
        db.exec("DETACH DATABASE old");
    } catch (const Error&) {
    }
}

}  // namespace

std::unique_ptr<sql::Db> open_index(const std::filesystem::path& file) {
    auto tune = [](std::unique_ptr<sql::Db> db) {
        db->exec("PRAGMA cache_size = -32000");
        db->exec("PRAGMA temp_store = MEMORY");
        // Reads through a memory map rather than a pread per page: the FTS lookups, the
        // freshness checks and loading vectors touch many pages of a file that is mostly in the
        // page cache anyway. Address space only; the pages are the kernel's file cache.
        db->exec("PRAGMA mmap_size = 1073741824");
        return db;
    };
    if (auto db = try_open(file)) return tune(std::move(db));
    // Another schema version, or not an index: everything in it is derived, so start over,
    // keeping only the vectors (above).
    std::filesystem::path old = file.string() + ".old";
    remove_files(old);
    bool kept = false;
    try {
        {
            sql::Db prev(file);
            prev.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        std::error_code ec;
        std::filesystem::rename(file, old, ec);
        kept = !ec;
    } catch (const Error&) {
    }
    remove_files(file);
    auto db = try_open(file);
    if (!db) throw Error(Error::Code::io, "cannot create index " + file.string());
    if (kept) carry_vectors(*db, old);
    remove_files(old);
    return tune(std::move(db));
}

}  // namespace coffer::retrieval
