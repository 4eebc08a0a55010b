// The Markdown files of a collection as the file system has them: the walk that sync uses
// (*.md and *.markdown, hidden files and folders skipped, symlinks followed only when they stay
// inside the root), a stat of one file, and reading one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace coffer::retrieval {

struct FileInfo {
    std::string rel;  // '/'-separated, relative to the root
    std::int64_t mtime_ns = 0;
    std::int64_t size = 0;
};

// Every indexable file under `root`, sorted by rel (so two walks of one tree insert in one
// order). A root that does not exist gives Error(not_found).
std::vector<FileInfo> scan_markdown(const std::filesystem::path& root);

// The file `rel` under `root` if it exists, is indexable and (through symlinks) stays inside
// the root; nullopt otherwise.
std::optional<FileInfo> stat_markdown(const std::filesystem::path& root, const std::string& rel);

// True when `rel` names something the walk could return: relative, no "..", nothing hidden, a
// Markdown extension.
bool indexable_path(const std::string& rel);

// The whole file; Error(io) when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace coffer::retrieval
