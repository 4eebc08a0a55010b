// Replacing a file atomically: the one implementation of the host (daemon.json, upstream-pids
// records, backup manifests) and bundled plugins (the skill library's records). Header-only,
// POSIX. See ADR 0027.
//
// A temporary "<path>.tmp-<pid>-<random>" is created beside `path` (O_EXCL, O_NOFOLLOW,
// close-on-exec, `mode` whatever the umask), written whole, fsync-ed and renamed over `path`, so
// a reader sees the old content or the new, never a part; a link planted at the temporary's name
// is never followed. On any failure the temporary is removed and `path` is left as it was.
// Errors as values: the result is empty on success, else a message naming what failed.
//
// A writer killed between creating the temporary and renaming it (SIGKILL, power loss) leaves the
// temporary behind; remove_stale_atomic_temporaries takes those away at the next start.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <coffer/process.hpp>

namespace coffer {

// The temporary's name for `path`: "<path>.tmp-<pid>-<16 hex>" (also used by writers that
// publish with link() instead of rename(), such as the master key's).
inline std::filesystem::path atomic_temporary_for(const std::filesystem::path& path) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%016llx", static_cast<long>(::getpid()),
                  static_cast<unsigned long long>(std::random_device{}()) << 32 ^ std::random_device{}());
    auto tmp = path;
    tmp += suffix;
    return tmp;
}

inline std::string write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                     unsigned mode = 0600) {
    auto tmp = atomic_temporary_for(path);
    auto failed = [&](const char* what, const std::filesystem::path& p, int err) {
        return std::string(what) + " " + p.string() + ": " + std::strerror(err);
    };
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) return failed("cannot create", tmp, errno);
    auto give_up = [&](const char* what, const std::filesystem::path& p, int err) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        return failed(what, p, err);
    };
    if (::fchmod(fd, mode) != 0) return give_up("cannot set the mode of", tmp, errno);
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        auto n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return give_up("cannot write", tmp, errno);
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) return give_up("cannot flush", tmp, errno);
    int rc = ::close(fd);
    fd = -1;
    if (rc != 0) return give_up("cannot write", tmp, errno);
    if (::rename(tmp.c_str(), path.c_str()) != 0) return give_up("cannot replace", path, errno);
    return {};
}

// The writer's pid when `name` is a temporary of write_file_atomic ("<base>.tmp-<pid>-<16 hex>",
// base not empty), else -1.
inline long long atomic_temporary_writer(std::string_view name) {
    auto at = name.rfind(".tmp-");
    if (at == std::string_view::npos || at == 0) return -1;
    auto rest = name.substr(at + 5);
    auto dash = rest.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash > 10 || rest.size() - dash - 1 != 16) return -1;
    long long pid = 0;
    for (char c : rest.substr(0, dash)) {
        if (c < '0' || c > '9') return -1;
        pid = pid * 10 + (c - '0');
    }
    for (char c : rest.substr(dash + 1))
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return -1;
    return pid;
}

// Removes from `dir` (not below it) the temporaries of write_file_atomic whose writer is gone:
// its pid is not a live process, or is this process (call it before this process writes into
// `dir`, e.g. at start-up, under the lock that makes it the folder's only writer). Only entries
// with exactly that name shape are touched; a link is removed, never followed. Returns the names
// removed.
inline std::vector<std::string> remove_stale_atomic_temporaries(const std::filesystem::path& dir) {
    std::vector<std::string> removed;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        auto pid = atomic_temporary_writer(name);
        if (pid < 0) continue;
        if (pid != static_cast<long long>(::getpid()) && process_alive(pid)) continue;
        std::error_code st_ec;
        auto st = it->symlink_status(st_ec);
        if (st_ec || std::filesystem::is_directory(st)) continue;
        if (::unlink(it->path().c_str()) == 0) removed.push_back(name);
    }
    return removed;
}

}  // namespace coffer
