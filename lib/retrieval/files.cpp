// Walking, stating and reading collection files (see files.hpp).
#include "retrieval/files.hpp"

#include "retrieval/types.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

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
// readdir type saves the stat of every folder and skipped file. Takes ownership of `dirfd`.
void walk(int dirfd, const std::string& rel_dir, const fs::path& root, const fs::path& canonical_root,
          std::vector<FileInfo>& out) {
    DIR* dir = ::fdopendir(dirfd);
    if (!dir) {
        ::close(dirfd);
        return;  // unreadable: skipped, as a permission-denied folder is
    }
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
            int sub = ::openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) walk(sub, rel_dir + std::string(name) + '/', root, canonical_root, out);
            continue;
        }
        if ((type != DT_REG && type != DT_LNK) || !has_markdown_extension(name)) continue;
        std::string rel = rel_dir + std::string(name);
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
    fs::path canonical_root = fs::canonical(root, ec);
    std::vector<FileInfo> out;
    int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw Error(Error::Code::io, "cannot read " + root.string() + ": " + std::strerror(errno));
    walk(fd, "", root, canonical_root, out);
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
