// The start-up check of the vault's own entries. The vault folder itself may be reached through a
// symbolic link (COFFER_HOME or --home naming a link is the user's configuration), but nothing
// inside it may be one: followed, a link would let the daemon chmod, write or open a database
// somewhere the user never chose (`logs` → elsewhere gets 0700 and log files, `coffer.db` → another
// application's database gets tables and WAL mode, `skills` → /etc is written through). The
// daemon refuses to start instead, naming the entry and where it points.
#pragma once

#include "core/result.hpp"

#include <filesystem>
#include <string_view>
#include <vector>

namespace coffer::daemon {

enum class EntryType { directory, file, socket };

struct VaultEntry {
    std::string path;  // relative to the vault
    EntryType type;
};

// The entries whose type the daemon knows: its folders, database files, key, state and lock
// files, socket and log files.
const std::vector<VaultEntry>& known_vault_entries();

// lstat()s, without following links: every top-level entry of the vault (a plugin's own folder
// such as `skills` included), every entry of `data/` (one folder per plugin) and of `logs/`.
// Refuses the first that is a symbolic link, or a known entry of another type, with a message
// that names it, says what it is (and where it links to) and what to do. Absent entries are fine.
core::Result<void> check_vault_entries(const std::filesystem::path& vault);

}  // namespace coffer::daemon
