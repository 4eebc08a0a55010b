#include "daemon/vault_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace coffer::daemon {

VaultLock::~VaultLock() {
    if (fd_ >= 0) {
        ::flock(fd_, LOCK_UN);
        ::close(fd_);
    }
}

core::Result<void> VaultLock::acquire(const std::filesystem::path& vault) {
    auto path = vault / "daemon.lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ < 0)
        return core::Error::make(core::code::internal, "cannot open " + path.string() + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd_);
        fd_ = -1;
        return core::Error::make(core::code::conflict,
                                 "another coffer-daemon is already running for the vault " + vault.string());
    }
    return {};
}

}  // namespace coffer::daemon
