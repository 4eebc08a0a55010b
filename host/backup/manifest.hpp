// The backup manifest (coffer-backup.json): format and schema versions, when and by which coffer
// it was made, and every entry with its mode; files with size and SHA-256.
#pragma once

#include "core/result.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace coffer::backup {

inline constexpr std::string_view kFormatName = "coffer-backup";
inline constexpr int kFormatVersion = 1;

struct Entry {
    enum class Type { file, dir, symlink };
    std::string path;      // relative to the vault, '/'-separated, normalised
    Type type = Type::file;
    unsigned mode = 0;     // permission bits (0777) the entry had in the vault
    std::uint64_t size = 0;  // files
    std::string sha256;      // files, lower-case hex
    std::string target;      // symlinks: the link text, as it was
};

struct Manifest {
    int format_version = kFormatVersion;
    std::string coffer_version;
    int schema_version = 0;  // the database's user_version
    std::string created_at;  // ISO-8601 UTC
    std::string source_vault;
    bool master_key = false;
    std::vector<Entry> entries;  // sorted by path; coffer.db is one of them

    boost::json::object to_json() const;
    // Parses and checks everything a restore relies on: paths are relative and stay inside the
    // vault, no duplicates, every parent is a listed folder, no runtime entries, coffer.db is
    // there. Refusals are BAD_REQUEST (manifest_invalid) or UNSUPPORTED (format_too_new).
    static core::Result<Manifest> from_json(const boost::json::value& v);

    const Entry* find(std::string_view path) const;
};

std::string_view type_name(Entry::Type t);
std::string mode_text(unsigned mode);  // "0644"

// True when `path` is a relative '/'-separated path without empty, "." or ".." parts.
bool is_clean_relative_path(std::string_view path);

}  // namespace coffer::backup
