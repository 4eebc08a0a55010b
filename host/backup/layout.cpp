#include "backup/layout.hpp"

#include "backup/errors.hpp"

#include <boost/json/object.hpp>

#include <array>

namespace coffer::backup {

namespace {
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
}  // namespace

bool is_runtime_entry(std::string_view name) {
    using namespace vault;
    static constexpr std::array<std::string_view, 9> exact{
        kDaemonJson, kDaemonLock, kSpawnLock, kLogs, kUpstreamPids, kDatabaseWal, kDatabaseShm, kDatabaseJournal,
        kMcpSocket};
    for (auto e : exact)
        if (name == e) return true;
    // write_file_atomic's temporary ("<name>.tmp-<pid>-<random>", coffer/atomic_file.hpp), e.g. a daemon.json being replaced.
    return name.find(".tmp-") != std::string_view::npos && starts_with(name, vault::kDaemonJson);
}

bool is_reserved_entry(std::string_view name) {
    return is_runtime_entry(name) || name == kManifest || name == kDatabase || name == kMasterKey;
}

core::Result<vault::FileLock> lock_vault(const std::filesystem::path& dir, vault::FileLock::Missing missing) {
    auto lock = vault::FileLock::try_take(dir / vault::kDaemonLock, missing);
    if (!lock && lock.error().code == core::code::conflict)
        return error(core::code::conflict, reason::daemon_running,
                     "a coffer-daemon is running for the vault " + dir.string() +
                         " (it holds daemon.lock); stop it first with `coffer daemon stop`",
                     boost::json::object{{"vault", dir.string()}});
    return lock;
}

}  // namespace coffer::backup
