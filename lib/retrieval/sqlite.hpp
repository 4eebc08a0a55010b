// A thin RAII layer over the SQLite C API for the retrieval index: a connection (Db), a prepared
// statement (Stmt) and a transaction guard (Transaction). Every failure becomes
// retrieval::Error(io) with SQLite's message, so the engines read as plain code.
#pragma once

#include "retrieval/types.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace coffer::retrieval::sql {

class Db {
public:
    explicit Db(const std::filesystem::path& file);  // opens (creating) the file
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    sqlite3* handle() const { return db_; }
    void exec(const char* sql);
    std::int64_t last_rowid() const { return sqlite3_last_insert_rowid(db_); }
    int changes() const { return sqlite3_changes(db_); }
    [[noreturn]] void fail(const char* what) const;

private:
    sqlite3* db_ = nullptr;
};

class Stmt {
public:
    Stmt(Db& db, const char* sql);
    ~Stmt();
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    // Binding is 1-based, as in SQLite. Text and blobs are copied (SQLITE_TRANSIENT).
    Stmt& bind(int i, std::int64_t v);
    Stmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
    Stmt& bind(int i, double v);
    Stmt& bind(int i, std::string_view v);
    Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
    Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
    Stmt& bind_blob(int i, const void* data, std::size_t size);

    bool step();   // true: a row is ready; false: done
    void run();    // steps to the end, then resets (for writes)
    void reset();  // ready for new bindings and another run

    std::int64_t int64(int col) const { return sqlite3_column_int64(st_, col); }
    double real(int col) const { return sqlite3_column_double(st_, col); }
    std::string text(int col) const;
    std::string_view text_view(int col) const;
    std::string_view blob(int col) const;
    bool is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }

private:
    Db& db_;
    sqlite3_stmt* st_ = nullptr;
};

// BEGIN IMMEDIATE on construction; rolled back on destruction unless commit() was called.
class Transaction {
public:
    explicit Transaction(Db& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    Db& db_;
    bool open_ = true;
};

}  // namespace coffer::retrieval::sql
