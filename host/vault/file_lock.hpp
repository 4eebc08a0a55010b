// An exclusive flock(2) on a file, held for the lifetime of the object: the one lock primitive of
// the vault (daemon.lock: one daemon per vault, taken by backup and restore too; spawn.lock:
// serialized spawns by the CLI and the shim).
//
// The file is opened 0600, never through a symbolic link (O_NOFOLLOW) and close-on-exec, so a
// child (a spawned daemon, an upstream server) never inherits, and so never keeps, the lock.
// Closing the descriptor releases the lock.
#pragma once

#include "core/result.hpp"

#include <chrono>
#include <filesystem>

namespace coffer::vault {

class FileLock {
public:
    enum class Missing { create, unheld };  // what to do when the lock file does not exist

    FileLock() = default;  // holds nothing
    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();

    // Without waiting. CONFLICT when another open file description holds it; INTERNAL when the
    // file cannot be opened or locked. With Missing::unheld, an absent file gives a FileLock
    // that holds nothing (nobody can hold a lock on a file that does not exist).
    static core::Result<FileLock> try_take(const std::filesystem::path& file, Missing missing = Missing::create);

    // Waits up to `timeout` (polling every 50 ms). UNAVAILABLE when the wait times out.
    static core::Result<FileLock> take_waiting(const std::filesystem::path& file,
                                               std::chrono::milliseconds timeout);

    bool held() const noexcept { return fd_ >= 0; }
    void release() noexcept;

private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace coffer::vault
