// What a backup holds: the vault's layout as seen by backup and restore (docs/backup.md).
//
// A backup folder mirrors the vault: coffer.db (an online-consistent copy), every file tree the
// vault holds (skills/, data/, plugins/, knowledge/, memory/ … whatever is there), master.key
// only when asked for, and the manifest coffer-backup.json. The daemon's runtime state is never
// copied: it belongs to one running process, not to the vault's content.
#pragma once

#include <string_view>

namespace coffer::backup {

inline constexpr std::string_view kDatabase = "coffer.db";
inline constexpr std::string_view kMasterKey = "master.key";
inline constexpr std::string_view kManifest = "coffer-backup.json";
inline constexpr std::string_view kLockFile = "daemon.lock";

// Top-level vault entries that are runtime state of a daemon (daemon.json, daemon.lock,
// spawn.lock, mcp.sock, logs/, upstream-pids/, the database's -wal/-shm/-journal side files, temporary
// files of an atomic replace). Never copied, never restored.
bool is_runtime_entry(std::string_view top_level_name);

// Top-level names a backup's file list may not use for a tree entry: the runtime entries, the
// manifest's own name, coffer.db and master.key (those two have their own rules).
bool is_reserved_entry(std::string_view top_level_name);

}  // namespace coffer::backup
