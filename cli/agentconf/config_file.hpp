// Reading and replacing an agent's config file the safe way: the edit is computed from what was
// read; the replacement checks that the file still holds exactly that (another program — the
// agent itself — may have written it meanwhile), keeps the previous content in "<file>.bak", and
// swaps the new content in atomically (temporary file, fsync, rename; coffer/atomic_file.hpp).
#pragma once

#include "core/result.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace coffer::agentconf {

struct Snapshot {
    std::filesystem::path path;  // the file written (a symbolic link's target, so the link stays)
    bool exists = false;
    std::string text;
    unsigned mode = 0600;        // kept for the replacement
};

// The file's content now (a missing file is an empty snapshot, not an error).
core::Result<Snapshot> read_config(const std::filesystem::path& path);

// The .bak beside a config file.
std::filesystem::path backup_path(const std::filesystem::path& path);

// Replaces the file read as `before` with `next`: refuses (CONFLICT, nothing written) when the file
// no longer holds `before.text`; writes "<file>.bak" with the previous content when there was a
// file; creates the parent folder (0700) when missing. `before_commit` runs just before that check
// (after the caller's read) (tests use it to change the file in that window).
core::Result<void> replace_config(const Snapshot& before, std::string_view next,
                                  const std::function<void()>& before_commit = {});

}  // namespace coffer::agentconf
