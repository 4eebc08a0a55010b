// An exclusive flock(2) on a file, held for the lifetime of the object.
#pragma once

#include "core/result.hpp"

#include <chrono>
#include <filesystem>

namespace coffer::client {

class FileLock {
public:
    // Creates the file (0600) if needed and waits up to `timeout` for an exclusive lock.
    // UNAVAILABLE when the wait times out.
    static core::Result<FileLock> acquire(const std::filesystem::path& file,
                                          std::chrono::milliseconds timeout);

    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();

private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace coffer::client
