// An online-consistent copy of coffer.db through the SQLite online backup API.
//
// pin() opens a second, query-only connection and starts a read transaction on it: in WAL mode
// that fixes the snapshot the copy will hold while the daemon keeps writing through its own
// connection. copy_to() then copies the pages of that snapshot in small steps (any thread), so
// no writer ever waits for the backup and the copy is never restarted by one.
#pragma once

#include "core/result.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <functional>
#include <memory>

namespace coffer::backup {

class DatabaseSnapshot {
public:
    static core::Result<std::unique_ptr<DatabaseSnapshot>> pin(const std::filesystem::path& db);
    ~DatabaseSnapshot();
    DatabaseSnapshot(const DatabaseSnapshot&) = delete;
    DatabaseSnapshot& operator=(const DatabaseSnapshot&) = delete;

    int schema_version() const noexcept { return schema_version_; }

    // Writes the snapshot to the new file `dest` (0600, rollback-journal mode so the copy is one
    // self-contained file) and checks it (PRAGMA quick_check). `cancelled` is polled between
    // steps. The snapshot is released afterwards whatever the outcome.
    core::Result<void> copy_to(const std::filesystem::path& dest, const std::function<bool()>& cancelled);

private:
    DatabaseSnapshot(sqlite3* db, int version) : db_(db), schema_version_(version) {}
    void release();
    sqlite3* db_;
    int schema_version_;
};

// PRAGMA user_version and quick_check of a database file opened immutable (nothing is written,
// no side files are created): what restore checks on the copy it staged.
struct DatabaseCheck {
    int schema_version = 0;
    bool ok = false;
    std::string problem;  // quick_check's first complaint, or why it could not be opened
};
DatabaseCheck check_database(const std::filesystem::path& file);

}  // namespace coffer::backup
