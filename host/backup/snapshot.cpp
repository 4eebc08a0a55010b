#include "backup/snapshot.hpp"

#include "backup/errors.hpp"
#include "store/database.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

namespace coffer::backup {

namespace fs = std::filesystem;

namespace {

constexpr int kPagesPerStep = 256;

core::Error db_error(sqlite3* db, const std::string& what) {
    return error(core::code::internal, reason::database, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

bool exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }

// The first column of the first row as text/int, for one-row pragmas.
bool query_int(sqlite3* db, const char* sql, int& out) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) return false;
    bool ok = sqlite3_step(st) == SQLITE_ROW;
    if (ok) out = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return ok;
}

bool query_text(sqlite3* db, const char* sql, std::string& out) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) return false;
    bool ok = sqlite3_step(st) == SQLITE_ROW;
    if (ok) {
        auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        out = p ? p : "";
    }
    sqlite3_finalize(st);
    return ok;
}

}  // namespace

core::Result<std::unique_ptr<DatabaseSnapshot>> DatabaseSnapshot::pin(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return error(core::code::not_found, reason::not_a_vault,
                     "there is no database at " + path.string() + ", so this is not a coffer vault to back up",
                     boost::json::object{{"path", path.string()}});
    sqlite3* db = nullptr;
    // Read-write without CREATE, then query_only: a WAL database needs its -shm, and a last
    // connection (offline backup) checkpoints and tidies up on close as the daemon's would.
    // Never through a link: a vault's coffer.db linked to another application's database is not ours.
    if (sqlite3_open_v2(store::nofollow_path(path).c_str(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, nullptr) != SQLITE_OK) {
        auto err = db_error(db, "cannot open " + path.string());
        sqlite3_close(db);
        return err;
    }
    sqlite3_busy_timeout(db, 5000);
    int version = 0;
    // The read transaction starts at the first read and holds that snapshot until COMMIT.
    if (!exec(db, "PRAGMA query_only=1") || !exec(db, "BEGIN") ||
        !query_int(db, "SELECT count(*) FROM sqlite_schema", version) ||
        !query_int(db, "PRAGMA user_version", version)) {
        auto err = db_error(db, "cannot read " + path.string());
        sqlite3_close_v2(db);
        return err;
    }
    return std::unique_ptr<DatabaseSnapshot>(new DatabaseSnapshot(db, version));
}

DatabaseSnapshot::~DatabaseSnapshot() { release(); }

void DatabaseSnapshot::release() {
    if (!db_) return;
    exec(db_, "COMMIT");
    sqlite3_close_v2(db_);
    db_ = nullptr;
}

core::Result<void> DatabaseSnapshot::copy_to(const fs::path& dest, const std::function<bool()>& cancelled) {
    struct Release {
        DatabaseSnapshot* s;
        ~Release() { s->release(); }
    } release_after{this};
    if (!db_) return error(core::code::internal, reason::database, "the database snapshot was already used");

    // An empty file is a valid empty database: create it 0600 first so the copy is never readable
    // by others, not even for a moment.
    int fd = ::open(dest.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return io_error("cannot create", dest.string(), errno);
    ::fchmod(fd, 0600);
    ::close(fd);

    sqlite3* out = nullptr;
    if (sqlite3_open_v2(dest.c_str(), &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        auto err = db_error(out, "cannot open " + dest.string());
        sqlite3_close(out);
        return err;
    }
    auto close_out = [&] { sqlite3_close_v2(out); };
    sqlite3_backup* b = sqlite3_backup_init(out, "main", db_, "main");
    if (!b) {
        auto err = db_error(out, "cannot start the database copy");
        close_out();
        return err;
    }
    int rc = SQLITE_OK;
    for (;;) {
        if (cancelled && cancelled()) {
            sqlite3_backup_finish(b);
            close_out();
            return error(core::code::unavailable, reason::cancelled, "the backup was cancelled (the daemon is stopping)");
        }
        rc = sqlite3_backup_step(b, kPagesPerStep);
        if (rc == SQLITE_DONE) break;
        if (rc == SQLITE_OK) continue;
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            continue;
        }
        break;
    }
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        auto err = error(core::code::internal, reason::database,
                         std::string("the database copy failed: ") + sqlite3_errstr(rc));
        close_out();
        return err;
    }
    std::string check;
    // The copy carries the source's WAL flag; one self-contained file is what a backup wants.
    if (!query_text(out, "PRAGMA journal_mode=DELETE", check) || check != "delete") {
        auto err = db_error(out, "cannot finish the database copy");
        close_out();
        return err;
    }
    if (!query_text(out, "PRAGMA quick_check", check) || check != "ok") {
        auto err = error(core::code::internal, reason::database, "the database copy does not pass quick_check: " + check);
        close_out();
        return err;
    }
    if (sqlite3_close(out) != SQLITE_OK) return db_error(out, "cannot close " + dest.string());
    return {};
}

DatabaseCheck check_database(const fs::path& file) {
    DatabaseCheck c;
    sqlite3* db = nullptr;
    // A path is safe in a file: URI once '?' and '#' (and '%') are escaped.
    std::string escaped = "file:";
    for (char ch : file.string()) {
        if (ch == '?' || ch == '#' || ch == '%') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(ch));
            escaped += buf;
        } else {
            escaped += ch;
        }
    }
    escaped += "?immutable=1";
    if (sqlite3_open_v2(escaped.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
        c.problem = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        return c;
    }
    std::string check;
    if (!query_int(db, "PRAGMA user_version", c.schema_version)) {
        c.problem = sqlite3_errmsg(db);
    } else if (!query_text(db, "PRAGMA quick_check", check) || check != "ok") {
        c.problem = check.empty() ? sqlite3_errmsg(db) : check;
    } else {
        c.ok = true;
    }
    sqlite3_close(db);
    return c;
}

}  // namespace coffer::backup
