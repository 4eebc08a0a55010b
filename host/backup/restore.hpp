// coffer::backup — restoring a backup folder into an empty vault (SPEC D-7; docs/backup.md).
//
// Nothing is written before every check passed: the manifest is valid and not newer than this
// coffer, the backup folder holds exactly the listed files with their sizes and SHA-256, no
// daemon runs for the vault and the vault is empty (or does not exist). The backup is then
// copied into a staging folder next to the vault (hashed again while copying, modes and
// modification times applied, the database checked) and renamed into place in one step, so a
// restore that fails leaves nothing behind.
#pragma once

#include "core/result.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <string>

namespace coffer::backup {

struct RestoreRequest {
    std::filesystem::path source;  // the backup folder
    std::filesystem::path vault;   // the vault to create
};

struct RestoreReport {
    std::filesystem::path source, vault;
    std::string created_at;      // when the backup was made
    std::string coffer_version;  // which coffer made it
    int schema_version = 0;
    std::size_t files = 0, directories = 0, symlinks = 0;
    std::uint64_t bytes = 0;
    bool master_key = false;

    boost::json::object to_json() const;
};

core::Result<RestoreReport> restore(const RestoreRequest& request);

// The manifest's and the files' checks alone (no vault involved): what restore runs first.
core::Result<RestoreReport> verify_backup(const std::filesystem::path& source);

}  // namespace coffer::backup
