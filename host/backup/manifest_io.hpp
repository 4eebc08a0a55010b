// Reading and writing <backup>/coffer-backup.json.
#pragma once

#include "backup/manifest.hpp"

#include <filesystem>

namespace coffer::backup {

// Written atomically (temporary file, fsync, rename), 0600, one entry per line.
core::Result<void> write_manifest(const std::filesystem::path& backup_dir, const Manifest& manifest);

// NOT_FOUND (manifest_missing) when absent; BAD_REQUEST (manifest_invalid) when it is not JSON
// or breaks a rule of Manifest::from_json.
core::Result<Manifest> read_manifest(const std::filesystem::path& backup_dir);

}  // namespace coffer::backup
