// The per-vault daemon lock ($COFFER_HOME/daemon.lock, flock): one daemon per vault.
#pragma once

#include "core/result.hpp"

#include <filesystem>

namespace coffer::daemon {

class VaultLock {
public:
    VaultLock() = default;
    ~VaultLock();
    VaultLock(const VaultLock&) = delete;
    VaultLock& operator=(const VaultLock&) = delete;

    // Non-blocking; fails with CONFLICT when another daemon holds it.
    core::Result<void> acquire(const std::filesystem::path& vault);

private:
    int fd_ = -1;
};

}  // namespace coffer::daemon
