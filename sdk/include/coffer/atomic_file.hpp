// Replacing a file atomically: the one implementation of the host (daemon.json, upstream-pids
// records, backup manifests) and bundled plugins (the skill library's records). Header-only,
// POSIX. See ADR 0027.
//
// A temporary "<path>.tmp-<pid>-<random>" is created beside `path` (O_EXCL, O_NOFOLLOW,
// close-on-exec, `mode` whatever the umask), written whole, fsync-ed and renamed over `path`, so
// a reader sees the old content or the new, never a part; a link planted at the temporary's name
// is never followed. On any failure the temporary is removed and `path` is left as it was.
// Errors as values: the result is empty on success, else a message naming what failed.
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

namespace coffer {

inline std::string write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                     unsigned mode = 0600) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%016llx", static_cast<long>(::getpid()),
                  static_cast<unsigned long long>(std::random_device{}()) << 32 ^ std::random_device{}());
    auto tmp = path;
    tmp += suffix;
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

}  // namespace coffer
