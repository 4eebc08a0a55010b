// What a backup holds: the vault's layout as seen by backup and restore (docs/backup.md).
//
// A backup folder mirrors the vault: coffer.db (an online-consistent copy), every file tree the
// vault holds (skills/, data/, plugins/, knowledge/, memory/ … whatever is there), master.key
// only when asked for, and the manifest coffer-backup.json. The daemon's runtime state is never
// copied: it belongs to one running process, not to the vault's content.
#pragma once

#include "core/result.hpp"
#include "vault/file_lock.hpp"
#include "vault/layout.hpp"

#include <filesystem>
#include <string_view>

namespace coffer::backup {

using vault::kDatabase;
using vault::kMasterKey;
inline constexpr std::string_view kManifest = "coffer-backup.json";

// Top-level vault entries that are runtime state of a daemon (daemon.json, daemon.lock,
// spawn.lock, mcp.sock, logs/, upstream-pids/, the database's -wal/-shm/-journal side files, temporary
// files of an atomic replace). Never copied, never restored.
bool is_runtime_entry(std::string_view top_level_name);

// Top-level names a backup's file list may not use for a tree entry: the runtime entries, the
// manifest's own name, coffer.db and master.key (those two have their own rules).
bool is_reserved_entry(std::string_view top_level_name);

// Takes <dir>/daemon.lock as the daemon does (vault::FileLock, without waiting): while it is held
// no daemon serves the vault and none can start. CONFLICT (daemon_running) when a daemon or
// another restore holds it; with Missing::unheld, a vault without daemon.lock gives an unheld lock
// (no daemon ever ran there, and none runs now).
core::Result<vault::FileLock> lock_vault(const std::filesystem::path& dir,
                                         vault::FileLock::Missing missing = vault::FileLock::Missing::create);

}  // namespace coffer::backup
