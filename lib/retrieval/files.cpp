// Walking, stating and reading collection files (see files.hpp).
#include "retrieval/files.hpp"

#include "retrieval/types.hpp"

#include <sys/stat.h>

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

std::vector<FileInfo> scan_markdown(const fs::path& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw Error(Error::Code::not_found, "no such folder: " + root.string());
    fs::path canonical_root = fs::canonical(root, ec);
    std::string root_prefix = root.generic_string();
    if (root_prefix.empty() || root_prefix.back() != '/') root_prefix += '/';
    std::vector<FileInfo> out;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const auto& entry = *it;
        std::string name = entry.path().filename().string();
        bool link = entry.is_symlink(ec);
        if (name.front() == '.') {
            if (entry.is_directory(ec) && !link) it.disable_recursion_pending();
            continue;
        }
        if (!has_markdown_extension(name)) continue;
        if (link && !stays_inside(entry.path(), canonical_root)) continue;
        struct stat st {};
        if (::stat(entry.path().c_str(), &st) != 0) continue;  // vanished meanwhile
        // The walk's paths all start with `root` + '/': slicing is much cheaper than
        // lexically_relative on every file of a large folder.
        std::string rel = entry.path().generic_string().substr(root_prefix.size());
        if (auto info = from_stat(st, rel)) out.push_back(std::move(*info));
    }
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
