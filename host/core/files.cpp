// Atomic writes, private folders and files, all without following a link at the target.
#include "core/files.hpp"

#include <coffer/atomic_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace coffer::core {

namespace fs = std::filesystem;

Result<void> write_file_atomic(const fs::path& path, std::string_view content, unsigned mode) {
    if (auto failed = coffer::write_file_atomic(path, content, mode); !failed.empty())
        return Error::make(code::internal, std::move(failed));
    return {};
}

std::vector<std::string> remove_stale_temporaries(const fs::path& dir) {
    return coffer::remove_stale_atomic_temporaries(dir);
}

Result<std::string> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error::make(code::not_found, "cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

Error link_refused(const fs::path& path, const char* what) {
    std::error_code ec;
    auto target = fs::read_symlink(path, ec);
    return Error::make(code::internal, path.string() + " is a symbolic link" +
                                           (ec ? std::string() : " to " + target.string()) + "; coffer-daemon does not " +
                                           what + " through links inside its vault");
}

}  // namespace

Result<void> ensure_private_dir(const fs::path& path, FollowLink follow) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return Error::make(code::internal, "cannot create " + path.string() + ": " + ec.message());
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow == FollowLink::no ? O_NOFOLLOW : 0);
    int fd = ::open(path.c_str(), flags);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP || (e == ENOTDIR && fs::is_symlink(fs::symlink_status(path, ec))))
            return link_refused(path, "change folders");
        return Error::make(code::internal, "cannot open the folder " + path.string() + ": " + std::strerror(e));
    }
    int rc = ::fchmod(fd, 0700);
    int e = errno;
    ::close(fd);
    if (rc != 0) return Error::make(code::internal, "cannot make " + path.string() + " private: " + std::strerror(e));
    return {};
}

Result<void> ensure_private_file(const fs::path& path, bool create) {
    // O_NONBLOCK: a fifo in its place must not hang the daemon (regular files ignore it).
    int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT && !create) return {};
        if (e == ELOOP) return link_refused(path, "open files");
        return Error::make(code::internal, "cannot open " + path.string() + ": " + std::strerror(e));
    }
    int rc = ::fchmod(fd, 0600);
    int e = errno;
    ::close(fd);
    if (rc != 0) return Error::make(code::internal, "cannot make " + path.string() + " private: " + std::strerror(e));
    return {};
}

}  // namespace coffer::core
