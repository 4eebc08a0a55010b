// check_vault_entries(): lstat over the vault's own entries; links and wrong types are refused.
#include "daemon/vault_check.hpp"

#include "vault/layout.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace coffer::daemon {

namespace fs = std::filesystem;

const std::vector<VaultEntry>& known_vault_entries() {
    using namespace vault;
    // Folders before what is inside them (the check walks this list in order).
    static const std::vector<VaultEntry> entries = [] {
        std::vector<VaultEntry> out;
        for (auto dir : {kLogs, kData, kPlugins, kUpstreamPids}) out.push_back({std::string(dir), EntryType::directory});
        for (auto file : {kDatabase, kDatabaseWal, kDatabaseShm, kDatabaseJournal, kMasterKey, kDaemonJson, kDaemonLock,
                          kSpawnLock})
            out.push_back({std::string(file), EntryType::file});
        out.push_back({std::string(kMcpSocket), EntryType::socket});
        // daemon.log and spdlog's rotations of it.
        for (std::string_view log : {kDaemonLog, std::string_view("daemon.1.log"), std::string_view("daemon.2.log"),
                                     std::string_view("daemon.3.log")})
            out.push_back({std::string(kLogs) + "/" + std::string(log), EntryType::file});
        return out;
    }();
    return entries;
}

namespace {

const char* type_name(mode_t mode) {
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISREG(mode)) return "a file";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISFIFO(mode)) return "a fifo";
    return "a device";
}

const char* type_name(EntryType t) {
    switch (t) {
    case EntryType::directory: return "a folder";
    case EntryType::file: return "a file";
    case EntryType::socket: return "a socket";
    }
    return "?";
}

bool matches(mode_t mode, EntryType t) {
    switch (t) {
    case EntryType::directory: return S_ISDIR(mode);
    case EntryType::file: return S_ISREG(mode);
    case EntryType::socket: return S_ISSOCK(mode) || S_ISREG(mode);  // a stale socket is replaced anyway
    }
    return false;
}

core::Error refused(const fs::path& entry, const std::string& what, const std::string& todo) {
    return core::Error::make(core::code::conflict,
                             "refusing to start: the vault entry " + entry.string() + " is " + what + "; " + todo);
}

core::Error link_refused(const fs::path& entry) {
    std::error_code ec;
    auto target = fs::read_symlink(entry, ec);
    return refused(entry,
                   "a symbolic link" + (ec ? std::string() : " to " + target.string()),
                   "coffer-daemon does not follow links inside its vault (only the vault folder itself may be "
                   "one). Replace the link with what it points to (move that into the vault) or remove it, "
                   "then start again");
}

// Checks one entry; `expected` is null for an entry only required not to be a link.
core::Result<void> check_entry(const fs::path& path, const VaultEntry* expected) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return {};
        return core::Error::make(core::code::internal,
                                 "cannot inspect the vault entry " + path.string() + ": " + std::strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) return link_refused(path);
    if (expected && !matches(st.st_mode, expected->type))
        return refused(path, type_name(st.st_mode),
                       std::string("coffer-daemon keeps ") + type_name(expected->type) +
                           " there. Move it out of the vault, then start again");
    return {};
}

// Every entry directly inside `dir` (when it is a folder), sorted, so the first refusal is stable.
std::vector<fs::path> children(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

core::Result<void> check_vault_entries(const fs::path& vault) {
    const auto& known = known_vault_entries();
    auto find = [&](const std::string& rel) -> const VaultEntry* {
        auto it = std::find_if(known.begin(), known.end(), [&](const VaultEntry& e) { return e.path == rel; });
        return it == known.end() ? nullptr : &*it;
    };
    // The known entries first (their folders before what is inside them), then everything else
    // at the top level and in data/ and logs/.
    for (const auto& e : known)
        if (auto r = check_entry(vault / e.path, &e); !r) return r;
    for (const auto& p : children(vault))
        if (auto r = check_entry(p, find(p.filename().string())); !r) return r;
    for (std::string_view dir : {vault::kData, vault::kLogs})
        for (const auto& p : children(vault / dir))
            if (auto r = check_entry(p, find(std::string(dir) + "/" + p.filename().string())); !r) return r;
    return {};
}

}  // namespace coffer::daemon
