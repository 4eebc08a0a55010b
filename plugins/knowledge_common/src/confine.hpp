// Keeping document paths inside their folder. A path from an agent or a user is relative,
// '/'-separated, valid UTF-8, without "..", "." or empty components, hidden components or NUL;
// every part of it that exists must stay inside the folder once symbolic links are resolved.
// Everything that reads or writes a document by a caller's path goes through here.
#pragma once

#include <coffer/sdk.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace coffer::knowledge {

inline constexpr std::size_t kMaxPathBytes = 1024;

struct Confined {
    std::filesystem::path abs;  // root / rel, lexically (links inside the root not resolved)
    std::string rel;            // normalised: no leading "./", '/'-separated
};

// Throws sdk::Error(COFFER_E_INVALID) for a malformed path (saying which rule), and
// sdk::Error(COFFER_E_DENIED) for one that leaves the root through a symbolic link.
// `markdown_only`: the name must end in .md or .markdown.
Confined confine(const std::filesystem::path& root, std::string_view rel, bool markdown_only);

// True when `name` ends in .md or .markdown (ASCII case-insensitive).
bool is_markdown_name(std::string_view name);

}  // namespace coffer::knowledge
