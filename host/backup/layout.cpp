#include "backup/layout.hpp"

#include <array>

namespace coffer::backup {

namespace {
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
}  // namespace

bool is_runtime_entry(std::string_view name) {
    static constexpr std::array<std::string_view, 9> exact{
        "daemon.json",   "daemon.lock",      "spawn.lock", "logs", "upstream-pids", "coffer.db-wal",
        "coffer.db-shm", "coffer.db-journal", "mcp.sock"};
    for (auto e : exact)
        if (name == e) return true;
    // core::write_file_atomic's temporary ("<name>.tmp-<pid>"), e.g. a daemon.json being replaced.
    return name.find(".tmp-") != std::string_view::npos && starts_with(name, "daemon.json");
}

bool is_reserved_entry(std::string_view name) {
    return is_runtime_entry(name) || name == kManifest || name == kDatabase || name == kMasterKey;
}

}  // namespace coffer::backup
