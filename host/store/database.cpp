// SQLite connection, statements and transactions.
#include "store/database.hpp"

namespace coffer::store {

Error sqlite_error(sqlite3* db, std::string_view what) {
    return Error::make(core::code::internal,
                       std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "sqlite error"));
}

Statement& Statement::operator=(Statement&& o) noexcept {
    if (this != &o) {
        if (stmt_) sqlite3_finalize(stmt_);
        db_ = o.db_;
        stmt_ = o.stmt_;
        o.stmt_ = nullptr;
    }
    return *this;
}

Statement::~Statement() {
    if (stmt_) sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int i, std::string_view t) {
    sqlite3_bind_text(stmt_, i, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
    return *this;
}
Statement& Statement::bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
}
Statement& Statement::bind_null(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
}

Result<bool> Statement::step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return sqlite_error(db_, "database step failed");
}

Result<void> Statement::run() {
    for (;;) {
        auto r = step();
        if (!r) return r.error();
        if (!*r) break;
    }
    return {};
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::string Statement::text(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
}
std::int64_t Statement::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
bool Statement::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::string nofollow_path(const std::filesystem::path& file) {
    std::error_code ec;
    auto dir = std::filesystem::canonical(file.has_parent_path() ? file.parent_path() : std::filesystem::path("."), ec);
    return ec ? file.string() : (dir / file.filename()).string();
}

Result<std::unique_ptr<Database>> Database::open(const std::filesystem::path& path) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(nofollow_path(path).c_str(), &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                             nullptr);
    if (rc != SQLITE_OK) {
        auto err = sqlite3_extended_errcode(db) == SQLITE_CANTOPEN_SYMLINK
                       ? Error::make(core::code::internal, "cannot open database " + path.string() +
                                                               ": it is a symbolic link, which is never followed")
                       : sqlite_error(db, "cannot open database " + path.string());
        sqlite3_close(db);
        return err;
    }
    std::unique_ptr<Database> out(new Database(db, path));
    sqlite3_busy_timeout(db, 5000);
    for (auto sql : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"}) {
        auto r = out->exec(sql);
        if (!r) return r.error();
    }
    return out;
}

Database::~Database() { sqlite3_close_v2(db_); }

Result<void> Database::exec(std::string_view sql) {
    std::string s(sql);
    char* msg = nullptr;
    if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
        std::string m = msg ? msg : "unknown";
        sqlite3_free(msg);
        return Error::make(core::code::internal, "database error: " + m);
    }
    return {};
}

Result<Statement> Database::prepare(std::string_view sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr) != SQLITE_OK)
        return sqlite_error(db_, "cannot prepare statement");
    return Statement(db_, s);
}

std::int64_t Database::changes() const { return sqlite3_changes64(db_); }

Transaction::Transaction(Database& db) : db_(db), begun_(db.exec("BEGIN IMMEDIATE")) {}

Transaction::~Transaction() {
    if (begun_.ok() && !done_) (void)db_.exec("ROLLBACK");
}

Result<void> Transaction::commit() {
    if (!begun_.ok()) return begun_.error();
    auto r = db_.exec("COMMIT");
    if (r.ok()) done_ = true;
    return r;
}

}  // namespace coffer::store
