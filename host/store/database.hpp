// coffer::store::Database — a thin SQLite connection wrapper (WAL, foreign keys, busy timeout).
// One connection, used from the daemon's service thread only.
#pragma once

#include "core/result.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::store {

using core::Error;
using core::Result;

class Statement {
public:
    Statement() = default;
    Statement(sqlite3* db, sqlite3_stmt* s) : db_(db), stmt_(s) {}
    Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
    Statement& operator=(Statement&& o) noexcept;
    ~Statement();

    Statement& bind(int index, std::string_view text);
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind_null(int index);
    Statement& bind(int index, const std::optional<std::int64_t>& v) { return v ? bind(index, *v) : bind_null(index); }

    // Advances; true while a row is available. Errors become a Result.
    Result<bool> step();
    // Runs to completion (for writes).
    Result<void> run();
    void reset();

    std::string text(int col) const;
    std::int64_t int64(int col) const;
    bool is_null(int col) const;

private:
    sqlite3* db_ = nullptr;
    sqlite3_stmt* stmt_ = nullptr;
};

// The name to give sqlite3_open_v2 together with SQLITE_OPEN_NOFOLLOW (which refuses a link
// anywhere in the name): the folder resolved, since it may be reached through links (a vault
// behind COFFER_HOME), and the file as named, since the file itself must not be a link.
std::string nofollow_path(const std::filesystem::path& file);

class Database {
public:
    // Opens (creating) the database, never through a link at `path` itself; WAL mode.
    static Result<std::unique_ptr<Database>> open(const std::filesystem::path& path);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    Result<void> exec(std::string_view sql);
    Result<Statement> prepare(std::string_view sql);
    std::int64_t changes() const;
    sqlite3* raw() const noexcept { return db_; }
    const std::filesystem::path& path() const noexcept { return path_; }

private:
    explicit Database(sqlite3* db, std::filesystem::path p) : db_(db), path_(std::move(p)) {}
    sqlite3* db_;
    std::filesystem::path path_;
};

// BEGIN IMMEDIATE on construction; rolls back unless commit() succeeded.
class Transaction {
public:
    explicit Transaction(Database& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    const Result<void>& begun() const noexcept { return begun_; }
    Result<void> commit();

private:
    Database& db_;
    Result<void> begun_;
    bool done_ = false;
};

Error sqlite_error(sqlite3* db, std::string_view what);

}  // namespace coffer::store
