// Reading .zip and .tar(.gz) archives safely. Nothing is ever written outside the destination
// folder: every entry name is checked and normalised first, files are created one path
// component at a time without following links, and links are never created at all — a link to
// a file inside the archive becomes a copy of that file. Refused (the whole archive):
//   - absolute names ("/etc/passwd", "C:\…"), names with ".." components or backslashes;
//   - symbolic or hard links whose target is absolute, leads out of the folder, is a folder, or
//     is not in the archive;
//   - devices, FIFOs, sockets; an entry that appears twice; more than the limits in limits.hpp.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::plugins::skill {

namespace fs = std::filesystem;

// True for names ending in .zip, .tar.gz, .tgz or .tar (case-insensitive).
bool looks_like_archive(const fs::path& path);

// Normalises an archive entry name to "a/b/c", or returns nothing and says why in `problem`.
std::optional<std::string> normalize_entry_name(std::string_view raw, std::string& problem);

// Extracts `archive` into the existing empty folder `dest`. Every refusal is appended to
// `problems` (the entry and the rule); when there is any, `dest` holds a partial extraction the
// caller must discard.
void extract_archive(const fs::path& archive, const fs::path& dest, std::vector<std::string>& problems);

}  // namespace coffer::plugins::skill
