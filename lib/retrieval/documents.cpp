// Writing one document's derived rows (see documents.hpp).
#include "retrieval/documents.hpp"

#include "retrieval/cjk/segment.hpp"
#include "retrieval/markdown.hpp"

#include <coffer/sha256.hpp>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace coffer::retrieval {
namespace {
// Chunks remembered per collection for take_written; past this, embed_pending asks the index.
constexpr std::size_t kWrittenMax = 4096;
}  // namespace

std::unordered_map<std::string, IndexedDocument> indexed_documents(sql::Db& db, const std::string& collection) {
    sql::Stmt st(db, "SELECT path, id, mtime_ns, size FROM documents WHERE collection = ?");
    st.bind(1, collection);
    std::unordered_map<std::string, IndexedDocument> out;
    while (st.step()) out[st.text(0)] = {st.int64(1), st.int64(2), st.int64(3)};
    return out;
}

std::string indexed_sha256(sql::Db& db, std::int64_t id) {
    sql::Stmt st(db, "SELECT sha256 FROM documents WHERE id = ?");
    st.bind(1, id);
    return st.step() ? st.text(0) : std::string();
}

std::string embedding_input(const std::string& title, const std::string& heading, const std::string& text) {
    std::string s = title;
    if (!heading.empty()) s += "\n" + heading;
    s += "\n\n";
    s += text;
    return s;
}

DocumentWriter::DocumentWriter(sql::Db& db)
    : db_(db),
      find_(db, "SELECT id FROM documents WHERE collection = ? AND path = ?"),
      insert_doc_(db, "INSERT INTO documents (collection, path, title, sha256, mtime_ns, size, chunks) "
                       "VALUES (?,?,?,?,?,?,?)"),
      update_doc_(db, "UPDATE documents SET title = ?, sha256 = ?, mtime_ns = ?, size = ?, chunks = ? WHERE id = ?"),
      touch_(db, "UPDATE documents SET mtime_ns = ?, size = ? WHERE id = ?"),
      delete_doc_(db, "DELETE FROM documents WHERE id = ?"),
      chunk_ids_(db, "SELECT id, embed_sha FROM chunks WHERE doc_id = ?"),
      delete_chunks_(db, "DELETE FROM chunks WHERE doc_id = ?"),
      delete_fts_(db, "DELETE FROM fts WHERE rowid = ?"),
      insert_chunk_(db, "INSERT INTO chunks (doc_id, seq, heading, line_from, line_to, text, embed_sha) "
                        "VALUES (?,?,?,?,?,?,?)"),
      insert_fts_(db, "INSERT INTO fts (rowid, title, heading, body) VALUES (?,?,?,?)"),
      drop_vector_(db, "DELETE FROM vectors WHERE sha = ?1 AND NOT EXISTS (SELECT 1 FROM chunks WHERE embed_sha = ?1)") {}

void DocumentWriter::remove_chunks(std::int64_t doc_id) {
    // FTS5 deletes by rowid one at a time (it does not take `rowid IN (subquery)` as a lookup).
    std::vector<std::int64_t> ids;
    chunk_ids_.bind(1, doc_id);
    while (chunk_ids_.step()) {
        ids.push_back(chunk_ids_.int64(0));
        dropped_.push_back(chunk_ids_.text(1));
    }
    chunk_ids_.reset();
    for (auto id : ids) delete_fts_.bind(1, id).run();
    delete_chunks_.bind(1, doc_id).run();
}

std::size_t DocumentWriter::write(const std::string& collection, const FileInfo& file, const std::string& content,
                                  const std::string& sha256) {
    auto parsed = parse_markdown(content, std::filesystem::path(file.rel).stem().string());

    std::int64_t doc_id = 0;
    find_.bind(1, collection).bind(2, file.rel);
    if (find_.step()) doc_id = find_.int64(0);
    find_.reset();
    if (doc_id != 0) {
        remove_chunks(doc_id);
        update_doc_.bind(1, parsed.title).bind(2, sha256).bind(3, file.mtime_ns).bind(4, file.size);
        update_doc_.bind(5, static_cast<std::int64_t>(parsed.chunks.size())).bind(6, doc_id).run();
    } else {
        insert_doc_.bind(1, collection).bind(2, file.rel).bind(3, parsed.title).bind(4, sha256);
        insert_doc_.bind(5, file.mtime_ns).bind(6, file.size).bind(7, static_cast<std::int64_t>(parsed.chunks.size()));
        insert_doc_.run();
        doc_id = db_.last_rowid();
    }
    changed_.push_back(doc_id);
    auto& written = written_[collection];
    if (written.chunks.size() > kWrittenMax) {
        written.chunks = {};
        written.complete = false;
    }

    std::string title_search = cjk::search_text(parsed.title);
    int seq = 0;
    for (const auto& c : parsed.chunks) {
        insert_chunk_.bind(1, doc_id).bind(2, seq++).bind(3, c.heading).bind(4, c.line_from).bind(5, c.line_to);
        std::string embed_sha = sha256_hex(embedding_input(parsed.title, c.heading, c.text));
        insert_chunk_.bind(6, c.text).bind(7, embed_sha).run();
        const std::int64_t chunk_id = db_.last_rowid();
        if (written.complete) written.chunks.emplace_back(std::move(embed_sha), chunk_id);
        insert_fts_.bind(1, chunk_id).bind(2, title_search).bind(3, cjk::search_text(c.heading));
        insert_fts_.bind(4, cjk::search_text(c.text)).run();
    }
    return parsed.chunks.size();
}

DocumentWriter::Written DocumentWriter::take_written(const std::string& collection) {
    Written out;
    if (auto it = written_.find(collection); it != written_.end()) {
        out = std::move(it->second);
        written_.erase(it);
    }
    return out;
}

void DocumentWriter::touch(std::int64_t id, const FileInfo& file) {
    touch_.bind(1, file.mtime_ns).bind(2, file.size).bind(3, id).run();
}

void DocumentWriter::remove(std::int64_t id) {
    changed_.push_back(id);
    remove_chunks(id);
    delete_doc_.bind(1, id).run();
}

void DocumentWriter::drop_orphan_vectors() {
    std::sort(dropped_.begin(), dropped_.end());
    dropped_.erase(std::unique(dropped_.begin(), dropped_.end()), dropped_.end());
    for (const auto& sha : dropped_) drop_vector_.bind(1, sha).run();
    dropped_.clear();
}

}  // namespace coffer::retrieval
