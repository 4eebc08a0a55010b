// The Markdown documents of a folder as files: listing them with titles, and reading a range of
// lines with line numbers. Both read the files (the truth), not the index, so they never show a
// document that is gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::knowledge {

struct DocumentInfo {
    std::string path;   // relative, '/'-separated
    std::string title;  // frontmatter `title:`, else the first "# " heading, else the file's stem
    std::uintmax_t bytes = 0;
};

// Markdown files below `root` whose relative path starts with `prefix`, sorted by path, at most
// `limit` (then *truncated is set). Hidden entries and links leaving the root are skipped.
std::vector<DocumentInfo> list_documents(const std::filesystem::path& root, std::string_view prefix, std::size_t limit,
                                         bool* truncated);

// The title of a Markdown text (see DocumentInfo::title); `stem` when it has none.
std::string title_of(std::string_view text, std::string_view stem);

struct Excerpt {
    std::string text;  // "  12\t<line>\n" per line
    int from = 0, to = 0, total = 0;
    bool truncated = false;  // stopped at max_bytes before `to`
};

// Lines from..to (1-based, inclusive; to 0 = to the end) of `file`, numbered. Throws
// std::runtime_error when the file cannot be read.
Excerpt read_lines(const std::filesystem::path& file, int from, int to, std::size_t max_bytes);

}  // namespace coffer::knowledge
