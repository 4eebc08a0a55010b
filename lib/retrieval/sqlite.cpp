// The SQLite RAII layer (see sqlite.hpp).
#include "retrieval/sqlite.hpp"

namespace coffer::retrieval::sql {

Db::Db(const std::filesystem::path& file) {
    int rc = sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw Error(Error::Code::io, "cannot open index " + file.string() + ": " + msg);
    }
    // A writer elsewhere (another process syncing) makes us wait a little rather than fail.
    sqlite3_busy_timeout(db_, 5000);
    sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() { sqlite3_close_v2(db_); }

void Db::exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw Error(Error::Code::io, "index: " + msg);
    }
}

void Db::fail(const char* what) const {
    throw Error(Error::Code::io, std::string("index: ") + what + ": " + sqlite3_errmsg(db_));
}

Stmt::Stmt(Db& db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db.handle(), sql, -1, SQLITE_PREPARE_PERSISTENT, &st_, nullptr) != SQLITE_OK)
        db.fail("prepare");
}

Stmt::~Stmt() { sqlite3_finalize(st_); }

Stmt& Stmt::bind(int i, std::int64_t v) {
    if (sqlite3_bind_int64(st_, i, v) != SQLITE_OK) db_.fail("bind");
    return *this;
}

Stmt& Stmt::bind(int i, double v) {
    if (sqlite3_bind_double(st_, i, v) != SQLITE_OK) db_.fail("bind");
    return *this;
}

Stmt& Stmt::bind(int i, std::string_view v) {
    if (sqlite3_bind_text64(st_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK)
        db_.fail("bind");
    return *this;
}

Stmt& Stmt::bind_blob(int i, const void* data, std::size_t size) {
    if (sqlite3_bind_blob64(st_, i, data, size, SQLITE_TRANSIENT) != SQLITE_OK) db_.fail("bind");
    return *this;
}

bool Stmt::step() {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    std::string msg = sqlite3_errmsg(db_.handle());
    sqlite3_reset(st_);
    throw Error(Error::Code::io, "index: " + msg);
}

void Stmt::run() {
    while (step()) {
    }
    reset();
}

void Stmt::reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
}

std::string Stmt::text(int col) const { return std::string(text_view(col)); }

std::string_view Stmt::text_view(int col) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
    if (!p) return {};
    return {p, static_cast<std::size_t>(sqlite3_column_bytes(st_, col))};
}

std::string_view Stmt::blob(int col) const {
    auto p = static_cast<const char*>(sqlite3_column_blob(st_, col));
    if (!p) return {};
    return {p, static_cast<std::size_t>(sqlite3_column_bytes(st_, col))};
}

Transaction::Transaction(Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
    if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
    db_.exec("COMMIT");
    open_ = false;
}

}  // namespace coffer::retrieval::sql
