// The vault's daemon.lock, as the daemon takes it (flock, exclusive, non-blocking): holding it
// means no daemon serves the vault and none can start until it is released.
#pragma once

#include "core/result.hpp"

#include <filesystem>

namespace coffer::backup {

class VaultLock {
public:
    VaultLock() = default;
    ~VaultLock();
    VaultLock(VaultLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    VaultLock& operator=(VaultLock&& o) noexcept;

    // Takes <dir>/daemon.lock (created 0600 when missing and `create`). CONFLICT
    // (daemon_running) when a daemon or another restore holds it; without `create`, a missing
    // lock file gives an unheld lock (no daemon ever ran there, and none runs now).
    static core::Result<VaultLock> take(const std::filesystem::path& dir, bool create = true);
    void release();

private:
    explicit VaultLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace coffer::backup
