// File helpers for the daemon's own files: atomic replace (temp file + fsync + rename) with a
// given mode, private folders and files. None of them follows a symbolic link in the last
// component of the path they write, so a link planted in the vault cannot redirect a write.
#pragma once

#include "core/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::core {

// coffer::write_file_atomic (coffer/atomic_file.hpp) with the error as a core::Error: a
// temporary beside `path` (O_NOFOLLOW, fsync-ed), renamed over `path`.
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content, unsigned mode = 0600);
Result<std::string> read_file(const std::filesystem::path& path);
// coffer::remove_stale_atomic_temporaries: the temporaries a killed writer left in `dir` (only
// "<name>.tmp-<pid>-<16 hex>" of a writer that is gone). Returns the names removed.
std::vector<std::string> remove_stale_temporaries(const std::filesystem::path& dir);

enum class FollowLink { no, yes };
// mkdir -p, then mode 0700. With FollowLink::no (the default) a link at `path` is refused and
// nothing is changed; FollowLink::yes is for a folder the user named (the vault itself).
Result<void> ensure_private_dir(const std::filesystem::path& path, FollowLink follow = FollowLink::no);

// Mode 0600 for the file at `path`, never through a link (a link is refused). Creates it empty
// when it does not exist and `create` is set; otherwise an absent file is left absent.
Result<void> ensure_private_file(const std::filesystem::path& path, bool create);

}  // namespace coffer::core
