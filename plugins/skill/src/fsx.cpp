#include "fsx.hpp"

#include <coffer/atomic_file.hpp>
#include <coffer/sha256.hpp>

#include <dirent.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <ctime>
#include <random>
#include <stdexcept>
#include <vector>

namespace coffer::plugins::skill::fsx {

Fd::~Fd() {
    if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

std::runtime_error sys_error(const std::string& what, const fs::path& path, int err) {
    return std::runtime_error(what + " " + path.string() + ": " + std::strerror(err));
}

namespace {

Stat to_stat(const struct stat& st) {
    Stat s;
    s.size = static_cast<std::uint64_t>(st.st_size);
    s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    s.ino = static_cast<std::uint64_t>(st.st_ino);
    s.exec = (st.st_mode & S_IXUSR) != 0;
    return s;
}

std::mt19937_64& rng() {
    static std::mt19937_64 g(std::random_device{}() ^
                             static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    return g;
}

void write_all(int fd, const char* p, std::size_t n, const std::string& name) {
    while (n) {
        auto w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            throw sys_error("cannot write", name, errno);
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

// The process's umask, read once without changing it (umask(2) would, for every thread). When
// it cannot be read, every created file gets an explicit fchmod.
mode_t process_umask() {
    static const mode_t mask = [] {
        std::ifstream in("/proc/self/status");
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
        return static_cast<mode_t>(0777);
    }();
    return mask;
}

// Creates the destination (or its temp), writes through `fill`, sets the mode, renames.
template <typename Fill>
Copied produce(int dirfd, std::string_view name, bool exec, bool atomic, Fill&& fill) {
    std::string final_name(name);
    std::string tmp = atomic ? "." + final_name + ".coffer-tmp-" + random_suffix() : final_name;
    mode_t mode = exec ? 0755 : 0644;
    Fd out(::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!out) throw sys_error("cannot create", final_name, errno);
    Copied c;
    try {
        Sha256 h;
        fill(out.get(), h);
        if ((mode & ~process_umask()) != mode && ::fchmod(out.get(), mode) != 0)
            throw sys_error("cannot set the mode of", final_name, errno);
        c.sha256 = h.hex();
        if (!atomic) {
            struct stat st {};
            if (::fstat(out.get(), &st) != 0) throw sys_error("cannot stat", final_name, errno);
            c.stat = to_stat(st);
            return c;  // closing changes neither mtime nor ctime
        }
        out = Fd();
        if (atomic && ::renameat(dirfd, tmp.c_str(), dirfd, final_name.c_str()) != 0)
            throw sys_error("cannot move into place", final_name, errno);
    } catch (...) {
        out = Fd();
        ::unlinkat(dirfd, tmp.c_str(), 0);
        throw;
    }
    struct stat st {};
    if (::fstatat(dirfd, final_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        throw sys_error("cannot stat", final_name, errno);
    c.stat = to_stat(st);
    return c;
}

}  // namespace

Fd open_dir_at(int dirfd, std::string_view rel, bool create) {
    Fd cur(::fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
    if (!cur) return cur;
    std::size_t pos = 0;
    while (pos < rel.size()) {
        auto slash = rel.find('/', pos);
        if (slash == std::string_view::npos) slash = rel.size();
        std::string part(rel.substr(pos, slash - pos));
        pos = slash + 1;
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            errno = EINVAL;
            return Fd();
        }
        int fd = ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && create) {
            if (::mkdirat(cur.get(), part.c_str(), 0755) != 0 && errno != EEXIST) return Fd();
            fd = ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0) return Fd();
        cur = Fd(fd);
    }
    return cur;
}

Fd open_dir(const fs::path& path) {
    return Fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

bool stat_at(int dirfd, std::string_view rel, Stat& out, bool* is_regular, bool* is_dir) {
    struct stat st {};
    std::string r(rel);
    if (::fstatat(dirfd, r.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
    out = to_stat(st);
    if (is_regular) *is_regular = S_ISREG(st.st_mode);
    if (is_dir) *is_dir = S_ISDIR(st.st_mode);
    return true;
}

Copied copy_file(const fs::path& src, int dirfd, std::string_view name, bool exec, bool atomic, std::uint64_t max_bytes) {
    // O_NOFOLLOW: never read through a link swapped in after the source was checked. The size
    // limit is enforced while reading; what is hashed is exactly what is written.
    Fd in(::open(src.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!in) throw sys_error("cannot read", src, errno);
    return produce(dirfd, name, exec, atomic, [&](int out, Sha256& h) {
        static thread_local std::vector<char> buf(1 << 16);
        std::uint64_t total = 0;
        for (;;) {
            auto n = ::read(in.get(), buf.data(), buf.size());
            if (n < 0) {
                if (errno == EINTR) continue;
                throw sys_error("cannot read", src, errno);  // EISDIR for a folder swapped in
            }
            if (n == 0) break;
            total += static_cast<std::uint64_t>(n);
            if (total > max_bytes) throw std::runtime_error(src.string() + " is larger than " + std::to_string(max_bytes) + " bytes");
            h.update(buf.data(), static_cast<std::size_t>(n));
            write_all(out, buf.data(), static_cast<std::size_t>(n), std::string(name));
            if (static_cast<std::size_t>(n) < buf.size()) {
                // A short read of a regular file means its end; confirm cheaply only for big files.
                if (total < buf.size()) break;
            }
        }
    });
}

Copied write_file(int dirfd, std::string_view name, std::string_view data, bool exec, bool atomic) {
    return produce(dirfd, name, exec, atomic, [&](int out, Sha256& h) {
        h.update(data);
        write_all(out, data.data(), data.size(), std::string(name));
    });
}

std::string hash_file_at(int dirfd, std::string_view rel, Stat* st_out) {
    std::string r(rel);
    Fd in(::openat(dirfd, r.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!in) return {};
    struct stat st {};
    if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
    Sha256 h;
    static thread_local std::vector<char> buf(1 << 16);
    for (;;) {
        auto n = ::read(in.get(), buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return {};
        }
        if (n == 0) break;
        h.update(buf.data(), static_cast<std::size_t>(n));
    }
    if (st_out) *st_out = to_stat(st);
    return h.hex();
}

std::string read_file(const fs::path& path, std::uint64_t max_bytes) {
    Fd in(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!in) throw sys_error("cannot read", path, errno);
    struct stat st {};
    if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) throw std::runtime_error(path.string() + " is not a regular file");
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
        throw std::runtime_error(path.filename().string() + " is larger than " + std::to_string(max_bytes / 1024) + " KiB");
    std::string out;
    out.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < out.size()) {
        auto n = ::read(in.get(), out.data() + got, out.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw sys_error("cannot read", path, errno);
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    return out;
}

void write_file_atomic(const fs::path& path, std::string_view data) {
    if (auto failed = coffer::write_file_atomic(path, data, 0600); !failed.empty()) throw std::runtime_error(failed);
}

void remove_tree(const fs::path& path) {
    std::error_code ec;
    fs::remove_all(path, ec);  // does not follow links: a link is removed, not its target
    if (ec && ec != std::errc::no_such_file_or_directory) throw std::runtime_error("cannot remove " + path.string() + ": " + ec.message());
}

namespace {

// Reads the entries of an open directory with getdents64 (no DIR* wrapper: one syscall per
// buffer, none for setup). The descriptor's offset must be at the start.
void read_entries(int fd, int stat_base, std::vector<DirEntry>& out) {
    alignas(8) char buf[16384];
    for (;;) {
        long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n <= 0) return;
        for (long off = 0; off < n;) {
            auto* d = reinterpret_cast<struct dirent64*>(buf + off);
            off += d->d_reclen;
            std::string_view name = d->d_name;
            if (name == "." || name == "..") continue;
            unsigned char type = d->d_type;
            if (type == DT_UNKNOWN) {
                struct stat st {};
                if (::fstatat(stat_base, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                    type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
            }
            out.push_back({std::string(name), type});
        }
    }
}

}  // namespace

std::vector<DirEntry> list_dir(int dirfd) {
    std::vector<DirEntry> out;
    Fd fd(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));  // own offset, unlike dup()
    if (fd) read_entries(fd.get(), dirfd, out);
    return out;
}

namespace {
void list_files_into(int dirfd, const std::string& prefix, bool (*skip)(std::string_view), std::vector<std::string>& out,
                     int depth, bool fresh) {
    if (depth > 64) return;
    std::vector<DirEntry> entries;
    if (fresh) read_entries(dirfd, dirfd, entries);  // a descriptor opened just now, offset 0
    else entries = list_dir(dirfd);
    for (auto& e : entries) {
        if (skip && skip(e.name)) continue;
        std::string rel = prefix.empty() ? e.name : prefix + "/" + e.name;
        if (e.type == DT_DIR) {
            Fd sub(::openat(dirfd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (sub) list_files_into(sub.get(), rel, skip, out, depth + 1, true);
        } else {
            out.push_back(std::move(rel));
        }
    }
}
}  // namespace

std::vector<std::string> list_files(int dirfd, bool (*skip)(std::string_view)) {
    std::vector<std::string> out;
    list_files_into(dirfd, "", skip, out, 0, false);
    return out;
}

std::string random_suffix() {
    static const char* digits = "0123456789abcdef";
    auto v = rng()();
    std::string s;
    for (int i = 0; i < 12; ++i) {
        s += digits[v & 15];
        v >>= 4;
    }
    return s;
}

std::string now_iso() {
    using namespace std::chrono;
    auto now = system_clock::now();
    auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    std::time_t t = system_clock::to_time_t(now);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    return buf;
}

}  // namespace coffer::plugins::skill::fsx
