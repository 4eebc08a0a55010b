// File helpers: atomic replace (temp file + fsync + rename) with a given mode.
#pragma once

#include "core/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace coffer::core {

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content, unsigned mode = 0600);
Result<std::string> read_file(const std::filesystem::path& path);
Result<void> ensure_private_dir(const std::filesystem::path& path);  // mkdir -p, then chmod 0700

}  // namespace coffer::core
