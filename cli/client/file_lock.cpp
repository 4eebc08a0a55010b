#include "client/file_lock.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace coffer::client {

core::Result<FileLock> FileLock::acquire(const std::filesystem::path& file,
                                         std::chrono::milliseconds timeout) {
    // O_CLOEXEC: the daemon we spawn must not inherit (and so keep holding) this lock.
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);  // never through a link
    if (fd < 0)
        return core::Error::make(core::code::internal,
                                 "cannot open " + file.string() + ": " + std::strerror(errno));
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            int err = errno;
            ::close(fd);
            return core::Error::make(core::code::internal,
                                     "cannot lock " + file.string() + ": " + std::strerror(err));
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(fd);
            return core::Error::make(core::code::unavailable,
                                     file.string() + " is held by another process for more than " +
                                         std::to_string(timeout.count() / 1000) + " s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return FileLock(fd);
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_); // closing the last descriptor releases the flock
}

}  // namespace coffer::client
