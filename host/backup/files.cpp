#include "backup/files.hpp"

#include "backup/errors.hpp"

#include <coffer/atomic_file.hpp>
#include <coffer/sha256.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace coffer::backup {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunk = 1 << 16;

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

ssize_t read_some(int fd, char* buf, std::size_t n) {
    for (;;) {
        auto r = ::read(fd, buf, n);
        if (r >= 0 || errno != EINTR) return r;
    }
}


core::Result<int> open_regular(const fs::path& path, struct stat& st) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return io_error("cannot open", path.string(), errno);
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = S_ISREG(st.st_mode) ? errno : EINVAL;
        ::close(fd);
        return io_error("not a regular file:", path.string(), e);
    }
    return fd;
}

}  // namespace

core::Result<Copied> copy_file(const fs::path& src, const fs::path& dst, unsigned mode, bool sync) {
    struct stat st {};
    auto in_fd = open_regular(src, st);
    if (!in_fd) return in_fd.error();
    Fd in(*in_fd);
    Fd out(::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out.get() < 0) return io_error("cannot create", dst.string(), errno);
    coffer::Sha256 hash;
    Copied c;
    std::vector<char> buf(kChunk);
    for (;;) {
        auto n = read_some(in.get(), buf.data(), buf.size());
        if (n < 0) return io_error("cannot read", src.string(), errno);
        if (n == 0) break;
        if (!coffer::write_all(out.get(), std::string_view(buf.data(), static_cast<std::size_t>(n))))
            return io_error("cannot write", dst.string(), errno);
        hash.update(buf.data(), static_cast<std::size_t>(n));
        c.size += static_cast<std::uint64_t>(n);
    }
    if (::fchmod(out.get(), mode & 0777u) != 0) return io_error("cannot set the mode of", dst.string(), errno);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    (void)::futimens(out.get(), times);
    if (sync && ::fsync(out.get()) != 0) return io_error("cannot flush", dst.string(), errno);
    if (::close(out.release()) != 0) return io_error("cannot write", dst.string(), errno);
    c.sha256 = hash.hex();
    return c;
}

core::Result<Copied> hash_file(const fs::path& path) {
    struct stat st {};
    auto fd = open_regular(path, st);
    if (!fd) return fd.error();
    Fd in(*fd);
    coffer::Sha256 hash;
    Copied c;
    std::vector<char> buf(kChunk);
    for (;;) {
        auto n = read_some(in.get(), buf.data(), buf.size());
        if (n < 0) return io_error("cannot read", path.string(), errno);
        if (n == 0) break;
        hash.update(buf.data(), static_cast<std::size_t>(n));
        c.size += static_cast<std::uint64_t>(n);
    }
    c.sha256 = hash.hex();
    return c;
}

core::Result<struct stat> lstat_path(const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return io_error("cannot stat", path.string(), errno);
    return st;
}

core::Result<void> sync_path(const fs::path& path) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (fd.get() < 0) return io_error("cannot open", path.string(), errno);
    if (::fsync(fd.get()) != 0) return io_error("cannot flush", path.string(), errno);
    return {};
}

core::Result<void> make_dir(const fs::path& path, unsigned mode) {
    if (::mkdir(path.c_str(), 0700) != 0) return io_error("cannot create the folder", path.string(), errno);
    if (::chmod(path.c_str(), mode & 0777u) != 0) return io_error("cannot set the mode of", path.string(), errno);
    return {};
}

void remove_quietly(const fs::path& path) {
    if (path.empty()) return;
    std::error_code ec;
    // Folders restored read-only (e.g. 0500) must become writable before their contents can go.
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
    ::chmod(path.c_str(), 0700);
    fs::remove_all(path, ec);
}

}  // namespace coffer::backup
