// Small POSIX file helpers that never follow a symbolic link where it matters: a skill's files
// come from untrusted folders and archives, and land in folders other programs (agents, users)
// also write to.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::plugins::skill::fsx {

namespace fs = std::filesystem;

// An owned file descriptor.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd();
    Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Fd& operator=(Fd&& o) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// What the stat cache compares: a file whose size, mtime, ctime and inode are unchanged since
// Coffer wrote or hashed it has not been written to since (ctime cannot be set by a user).
struct Stat {
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
    std::uint64_t ino = 0;
    bool exec = false;
    bool same_content_signature(const Stat& o) const noexcept {
        return size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns && ino == o.ino;
    }
};

// An error from a file operation, with the path and the system's reason.
std::runtime_error sys_error(const std::string& what, const fs::path& path, int err);

// Opens the directory `rel` ("a/b", may be empty) below `dirfd` one component at a time with
// O_NOFOLLOW, creating missing ones (mode 0755) when `create`. Returns an invalid Fd with errno
// set when a component is missing (and not created), is a link, or is not a directory.
Fd open_dir_at(int dirfd, std::string_view rel, bool create);
// Opens an absolute directory path; the last component must not be a link.
Fd open_dir(const fs::path& path);

// lstat-like stat of `name` below `dirfd` (no link followed at the last component). False
// (errno set) when absent.
bool stat_at(int dirfd, std::string_view rel, Stat& out, bool* is_regular = nullptr, bool* is_dir = nullptr);

struct Copied {
    std::string sha256;
    Stat stat;  // of the file as it now is at its destination
};

// Copies the regular file `src` into `dirfd`/`name` with mode 0644 (0755 when `exec`), hashing
// it on the way. `atomic`: write "<name>.coffer-tmp-*" then rename over `name` (replacing a
// file); otherwise create `name` exclusively. Throws on failure.
Copied copy_file(const fs::path& src, int dirfd, std::string_view name, bool exec, bool atomic,
                 std::uint64_t max_bytes);
// Writes `data` the same way.
Copied write_file(int dirfd, std::string_view name, std::string_view data, bool exec, bool atomic);

// SHA-256 of the regular file `rel` below `dirfd` (no link followed at the last component); the
// file's Stat goes to `st`. Empty string when it cannot be read.
std::string hash_file_at(int dirfd, std::string_view rel, Stat* st = nullptr);

// Reads a whole file of at most `max_bytes` (throws beyond, or when it cannot be read).
std::string read_file(const fs::path& path, std::uint64_t max_bytes);
// Writes a file atomically, 0600 (coffer/atomic_file.hpp); throws with its message on failure.
void write_file_atomic(const fs::path& path, std::string_view data);
// Removes a tree without following links; ignores a missing path.
void remove_tree(const fs::path& path);

// The entries of the directory open as `dirfd` (without "." and ".."), each with its type
// (DT_REG, DT_DIR, DT_LNK, … from <dirent.h>; looked up when the file system does not say).
struct DirEntry {
    std::string name;
    unsigned char type;
};
std::vector<DirEntry> list_dir(int dirfd);
// Every regular file and link below `dirfd`, as relative paths; folders are entered without
// following links. `skip(name)` leaves an entry (and what is below it) out.
std::vector<std::string> list_files(int dirfd, bool (*skip)(std::string_view) = nullptr);

// 12 random hex characters for temp names.
std::string random_suffix();
// Now as ISO-8601 UTC with milliseconds.
std::string now_iso();

}  // namespace coffer::plugins::skill::fsx
