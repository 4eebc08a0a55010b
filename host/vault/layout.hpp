// The names of the vault's entries ($COFFER_HOME/…, docs/architecture.md "The vault"): the one
// place they are spelled. Daemon, backup, CLI and shim build paths from these constants.
#pragma once

#include <string_view>

namespace coffer::vault {

// Files at the top level.
inline constexpr std::string_view kDaemonJson = "daemon.json";  // pid, port, token… of the running daemon
inline constexpr std::string_view kDaemonLock = "daemon.lock";  // held by the running daemon
inline constexpr std::string_view kSpawnLock = "spawn.lock";    // serializes CLI/shim spawns
inline constexpr std::string_view kMcpSocket = "mcp.sock";      // the MCP local socket
inline constexpr std::string_view kDatabase = "coffer.db";      // SQLite (WAL)
inline constexpr std::string_view kMasterKey = "master.key";    // the Fernet key of the credentials
// SQLite's side files of coffer.db (their names are SQLite's: the database's name + suffix).
inline constexpr std::string_view kDatabaseWal = "coffer.db-wal";
inline constexpr std::string_view kDatabaseShm = "coffer.db-shm";
inline constexpr std::string_view kDatabaseJournal = "coffer.db-journal";

// Folders at the top level.
inline constexpr std::string_view kLogs = "logs";                  // the daemon's log files
inline constexpr std::string_view kData = "data";                  // data/<plugin>/, each plugin's own
inline constexpr std::string_view kPlugins = "plugins";            // user-installed plugins
inline constexpr std::string_view kUpstreamPids = "upstream-pids"; // children plugins started

// Inside logs/.
inline constexpr std::string_view kDaemonLog = "daemon.log";
// What a daemon started in the background (by the CLI or the shim) printed: its reason when it
// stops before its log is open (another daemon holds the vault, the vault is unusable).
inline constexpr std::string_view kDaemonStderr = "daemon.stderr";

// The default vault folder's name in the user's home.
inline constexpr std::string_view kDefaultDirName = ".coffer";

}  // namespace coffer::vault
