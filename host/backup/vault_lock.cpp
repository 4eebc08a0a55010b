#include "backup/vault_lock.hpp"

#include "backup/errors.hpp"
#include "backup/layout.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace coffer::backup {

VaultLock::~VaultLock() { release(); }

VaultLock& VaultLock::operator=(VaultLock&& o) noexcept {
    if (this != &o) {
        release();
        fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
}

void VaultLock::release() {
    if (fd_ < 0) return;
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
    fd_ = -1;
}

core::Result<VaultLock> VaultLock::take(const std::filesystem::path& dir, bool create) {
    auto path = dir / kLockFile;
    int fd = ::open(path.c_str(), O_RDWR | (create ? O_CREAT : 0) | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && !create && errno == ENOENT) return VaultLock();
    if (fd < 0) return io_error("cannot open", path.string(), errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return error(core::code::conflict, reason::daemon_running,
                     "a coffer-daemon is running for the vault " + dir.string() +
                         " (it holds daemon.lock); stop it first with `coffer daemon stop`",
                     boost::json::object{{"vault", dir.string()}});
    }
    return VaultLock(fd);
}

}  // namespace coffer::backup
