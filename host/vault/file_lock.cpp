// flock(2) on the vault's lock files (vault/file_lock.hpp).
#include "vault/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

namespace coffer::vault {

namespace fs = std::filesystem;

namespace {

enum class Wait { no, yes };

// The locked descriptor, or -1 for an absent file with Missing::unheld.
core::Result<int> take(const fs::path& file, FileLock::Missing missing, Wait wait, std::chrono::milliseconds timeout) {
    int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (missing == FileLock::Missing::create ? O_CREAT : 0);
    int fd = ::open(file.c_str(), flags, 0600);
    if (fd < 0 && missing == FileLock::Missing::unheld && errno == ENOENT) return -1;
    if (fd < 0)
        return core::Error::make(core::code::internal, "cannot open " + file.string() + ": " + std::strerror(errno));
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EINTR) continue;
        if (e != EWOULDBLOCK) {
            ::close(fd);
            return core::Error::make(core::code::internal, "cannot lock " + file.string() + ": " + std::strerror(e));
        }
        if (wait == Wait::no) {
            ::close(fd);
            return core::Error::make(core::code::conflict, file.string() + " is held by another process");
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(fd);
            return core::Error::make(core::code::unavailable, file.string() +
                                                                  " is held by another process for more than " +
                                                                  std::to_string(timeout.count() / 1000) + " s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return fd;
}

}  // namespace

core::Result<FileLock> FileLock::try_take(const fs::path& file, Missing missing) {
    auto fd = take(file, missing, Wait::no, {});
    if (!fd) return fd.error();
    return FileLock(*fd);
}

core::Result<FileLock> FileLock::take_waiting(const fs::path& file, std::chrono::milliseconds timeout) {
    auto fd = take(file, Missing::create, Wait::yes, timeout);
    if (!fd) return fd.error();
    return FileLock(*fd);
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        release();
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

FileLock::~FileLock() { release(); }

void FileLock::release() noexcept {
    if (fd_ < 0) return;
    ::close(fd_);  // closing the only descriptor of the open file description releases the flock
    fd_ = -1;
}

}  // namespace coffer::vault
