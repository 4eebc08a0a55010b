// What the running daemon published in daemon.json, and creating the vault folder. Where the
// vault is (--home, $COFFER_HOME, ~/.coffer) is vault::resolve_home (host/vault/home.hpp).
#pragma once

#include "core/result.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace coffer::client {

// What the daemon writes to $COFFER_HOME/daemon.json once it is ready (removed on clean exit).
struct DaemonInfo {
    int pid = 0;
    std::uint16_t port = 0;
    std::string token;
    std::string version;
    std::string started_at;
    std::string vault;
    std::string mcp_socket;  // the Unix-domain socket local MCP clients may use; empty: HTTP only
};

// $vault/daemon.json.
std::filesystem::path daemon_json_path(const std::filesystem::path& vault);

// Reads daemon.json. NOT_FOUND when it does not exist, INTERNAL when it cannot
// be read or parsed (e.g. a half-written file).
core::Result<DaemonInfo> read_daemon_info(const std::filesystem::path& vault);

// Creates the vault directory (and parents) if missing; the vault itself gets mode 0700.
core::Result<void> ensure_vault_dir(const std::filesystem::path& vault);

}  // namespace coffer::client
