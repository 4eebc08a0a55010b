// File primitives of backup and restore: copy one regular file while hashing it (never through a
// symlink, never over an existing file), hash a file, fsync, private folders.
#pragma once

#include "core/result.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace coffer::backup {

struct Copied {
    std::uint64_t size = 0;
    std::string sha256;
};

// Copies the regular file `src` to the new file `dst` (O_EXCL|O_NOFOLLOW), created with `mode`,
// keeping `src`'s modification time; returns the size and SHA-256 of exactly what was copied.
// `sync`: fsync `dst` before returning.
core::Result<Copied> copy_file(const std::filesystem::path& src, const std::filesystem::path& dst, unsigned mode,
                               bool sync);

// Size and SHA-256 of a regular file (not followed when it is a symlink).
core::Result<Copied> hash_file(const std::filesystem::path& path);

// lstat(2); errors as values.
core::Result<struct stat> lstat_path(const std::filesystem::path& path);

// fsync(2) a file or folder by path (opened read-only).
core::Result<void> sync_path(const std::filesystem::path& path);

// mkdir(2) with `mode` (exact, umask ignored); EEXIST is an error.
core::Result<void> make_dir(const std::filesystem::path& path, unsigned mode);

// Removes a tree, ignoring errors (cleanup of a partial backup or restore).
void remove_quietly(const std::filesystem::path& path);

}  // namespace coffer::backup
