// coffer::backup — writing a backup folder (SPEC D-7; docs/backup.md, docs/decisions/0018).
//
// Two phases, so the daemon can run the first where nothing else changes the vault and the
// second off to the side while it keeps serving:
//   start()   checks the destination, creates it (0700), pins the database snapshot and copies
//             the file trees. Run it where no lifecycle change runs at the same time (the
//             daemon's service thread), so the trees and the snapshot agree.
//   finish()  copies the database pages of the pinned snapshot, checks the copy, flushes
//             everything and writes the manifest last. Any thread.
// A job that does not finish removes what it wrote; the manifest is written last, so a folder
// without one is never a backup.
#pragma once

#include "backup/manifest.hpp"
#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace coffer::backup {

struct BackupRequest {
    std::filesystem::path vault;
    std::filesystem::path destination;  // absolute; must not exist or be an empty folder
    bool include_master_key = false;
    std::string coffer_version;
};

struct BackupReport {
    std::filesystem::path destination;
    std::string created_at;
    std::string coffer_version;
    int schema_version = 0;
    std::size_t files = 0, directories = 0, symlinks = 0;
    std::uint64_t bytes = 0;
    bool master_key = false;            // master.key is in the backup
    bool master_key_in_vault = false;   // the vault has one (whether or not it was included)
    std::vector<std::string> skipped;   // entries that are neither file, folder nor symlink
    std::int64_t duration_ms = 0;

    boost::json::object to_json() const;
};

class BackupJob {
public:
    static core::Result<std::unique_ptr<BackupJob>> start(BackupRequest request);
    ~BackupJob();
    BackupJob(const BackupJob&) = delete;
    BackupJob& operator=(const BackupJob&) = delete;

    // Call once. `cancelled` is polled while the database pages are copied.
    core::Result<BackupReport> finish(const std::function<bool()>& cancelled = {});

    const BackupRequest& request() const noexcept { return request_; }

    struct State;

private:
    BackupJob(BackupRequest r, std::unique_ptr<State> s);
    BackupRequest request_;
    std::unique_ptr<State> state_;
};

// The whole backup in this process with no daemon: takes the vault's daemon.lock for the
// duration (so no daemon starts and writes meanwhile) and runs start() and finish(). CONFLICT
// (daemon_running) when a daemon holds the lock.
core::Result<BackupReport> backup_offline(BackupRequest request);

// Checks a destination without touching anything: absolute, outside the vault, and either
// absent (with an existing parent folder) or an empty folder.
core::Result<void> check_destination(const std::filesystem::path& vault, const std::filesystem::path& destination);

}  // namespace coffer::backup
