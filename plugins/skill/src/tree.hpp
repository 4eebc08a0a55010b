// The files of a skill folder, checked for path safety: what an import copies and what the
// library holds. A link to a regular file inside the folder counts as a copy of that file; any
// other link (absolute, leading outside the folder, to a folder, dangling) and any special file
// (device, FIFO, socket) is refused.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::plugins::skill {

namespace fs = std::filesystem;

// "a/b/c" -> "a/b" and "c"; a top-level name has an empty parent.
inline std::string parent_of(std::string_view rel) {
    auto slash = rel.rfind('/');
    return slash == std::string_view::npos ? std::string() : std::string(rel.substr(0, slash));
}
inline std::string base_of(std::string_view rel) {
    auto slash = rel.rfind('/');
    return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

struct FileEntry {
    std::string rel;     // "scripts/run.sh" ('/'-separated, no "." or "..")
    fs::path src;        // where the bytes are read from
    std::uint64_t size = 0;
    bool exec = false;
};

struct Tree {
    std::vector<FileEntry> files;      // sorted by rel
    std::vector<std::string> dirs;     // every folder below the root, sorted (parents first)
    std::uint64_t bytes = 0;
    std::vector<std::string> skipped;  // left out on purpose (.git, __MACOSX, .DS_Store)
    const FileEntry* find(std::string_view rel) const;
};

// Entries an import leaves out: version-control and archiver debris.
bool is_junk(std::string_view name);
// Why a single path component cannot be used ("contains a control character", …), or "".
std::string component_problem(std::string_view name);

// Scans `root` (a directory). Problems are appended to `problems` as messages naming the path;
// the scan stops early when a size limit is exceeded.
Tree scan_folder(const fs::path& root, std::vector<std::string>& problems);

}  // namespace coffer::plugins::skill
