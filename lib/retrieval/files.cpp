// Walking, stating and reading collection files (see files.hpp).
#include "retrieval/files.hpp"

#include "retrieval/types.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace coffer::retrieval {
namespace fs = std::filesystem;
namespace {

bool has_markdown_extension(std::string_view name) {
    auto ends_with_ci = [&](std::string_view ext) {
        if (name.size() <= ext.size()) return false;
        auto tail = name.substr(name.size() - ext.size());
        return std::equal(tail.begin(), tail.end(), ext.begin(),
                          [](char a, char b) { return (a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a) == b; });
    };
    return ends_with_ci(".md") || ends_with_ci(".markdown");
}

std::optional<FileInfo> from_stat(const struct stat& st, std::string rel) {
    if (!S_ISREG(st.st_mode)) return std::nullopt;
    return FileInfo{std::move(rel),
                    static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                    static_cast<std::int64_t>(st.st_size)};
}

// `p` (a symlink) resolves to a place inside `canonical_root`.
bool stays_inside(const fs::path& p, const fs::path& canonical_root) {
    std::error_code ec;
    fs::path target = fs::canonical(p, ec);
    if (ec) return false;
    auto rel = target.lexically_relative(canonical_root);
    return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

bool indexable_path(const std::string& rel) {
    if (rel.empty() || rel.front() == '/' || !has_markdown_extension(rel)) return false;
    for (const auto& part : fs::path(rel)) {
        std::string s = part.string();
        if (s.empty() || s.front() == '.') return false;  // hidden, ".", ".."
    }
    return true;
}

namespace {

// One folder of the walk, read through its descriptor: entries are stat'ed relative to it
// (fstatat), so the kernel resolves one name per file rather than the whole path, and a
// readdir type saves the stat of every folder and skipped file. Subfolders go to `subdirs`.
void scan_dir(int root_fd, const std::string& rel_dir, const fs::path& root, const fs::path& canonical_root,
              std::vector<FileInfo>& out, std::vector<std::string>& subdirs) {
    int dirfd = rel_dir.empty() ? ::dup(root_fd)
                                : ::openat(root_fd, rel_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd < 0) return;  // unreadable (or replaced meanwhile): skipped, as a permission-denied folder is
    DIR* dir = ::fdopendir(dirfd);
    if (!dir) {
        ::close(dirfd);
        return;
    }
    const std::string prefix = rel_dir.empty() ? std::string() : rel_dir + '/';
    while (const dirent* e = ::readdir(dir)) {
        std::string_view name = e->d_name;
        if (name.empty() || name.front() == '.') continue;  // hidden (and "." and "..")
        unsigned char type = e->d_type;
        struct stat st {};
        if (type == DT_UNKNOWN) {
            if (::fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
        }
        if (type == DT_DIR) {  // a symlink to a folder is not followed (the walk never was)
            subdirs.push_back(prefix + std::string(name));
            continue;
        }
        if ((type != DT_REG && type != DT_LNK) || !has_markdown_extension(name)) continue;
        std::string rel = prefix + std::string(name);
        if (type == DT_LNK && !stays_inside(root / rel, canonical_root)) continue;
        if (::fstatat(dirfd, e->d_name, &st, 0) != 0) continue;  // vanished meanwhile
        if (auto info = from_stat(st, std::move(rel))) out.push_back(std::move(*info));
    }
    ::closedir(dir);
}

}  // namespace

std::vector<FileInfo> scan_markdown(const fs::path& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw Error(Error::Code::not_found, "no such folder: " + root.string());
    const fs::path canonical_root = fs::canonical(root, ec);
    const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) throw Error(Error::Code::io, "cannot read " + root.string() + ": " + std::strerror(errno));

    // Two threads take folders from one queue: a stat is a system call, dear on a virtual
    // machine, and 10,000 of them are most of a re-sync; the order they come in does not
    // matter (sorted below).
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::string> queue = {std::string()};
    std::size_t busy = 0;
    std::exception_ptr failed;
    auto work = [&](std::vector<FileInfo>& out) {
        std::vector<std::string> subdirs;
        for (;;) {
            std::string rel_dir;
            {
                std::unique_lock<std::mutex> lock(mu);
                cv.wait(lock, [&] { return !queue.empty() || busy == 0; });
                if (queue.empty()) return;
                rel_dir = std::move(queue.back());
                queue.pop_back();
                ++busy;
            }
            std::exception_ptr error;
            try {
                subdirs.clear();
                scan_dir(root_fd, rel_dir, root, canonical_root, out, subdirs);
            } catch (...) {  // out of memory: the other walker must not wait for this one forever
                error = std::current_exception();
            }
            {
                std::lock_guard<std::mutex> lock(mu);
                if (error) {
                    failed = error;
                    queue.clear();
                } else {
                    for (auto& d : subdirs) queue.push_back(std::move(d));
                }
                --busy;
            }
            cv.notify_all();
        }
    };
    std::vector<FileInfo> out, theirs;
    {
        std::optional<std::thread> helper;
        try {
            helper.emplace(work, std::ref(theirs));
        } catch (const std::system_error&) {  // no thread to be had: one walker is enough
        }
        work(out);
        if (helper) helper->join();
    }
    ::close(root_fd);
    if (failed) std::rethrow_exception(failed);
    out.insert(out.end(), std::make_move_iterator(theirs.begin()), std::make_move_iterator(theirs.end()));
    std::sort(out.begin(), out.end(), [](const FileInfo& a, const FileInfo& b) { return a.rel < b.rel; });
    return out;
}

std::optional<FileInfo> stat_markdown(const fs::path& root, const std::string& rel) {
    if (!indexable_path(rel)) return std::nullopt;
    fs::path p = root / rel;
    struct stat lst {};
    if (::lstat(p.c_str(), &lst) != 0) return std::nullopt;
    if (S_ISLNK(lst.st_mode)) {
        std::error_code ec;
        if (!stays_inside(p, fs::canonical(root, ec))) return std::nullopt;
    }
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    return from_stat(st, rel);
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(Error::Code::io, "cannot read " + path.string() + ": " + std::strerror(errno));
    std::string text;
    in.seekg(0, std::ios::end);
    auto size = in.tellg();
    if (size > 0) text.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

}  // namespace coffer::retrieval
