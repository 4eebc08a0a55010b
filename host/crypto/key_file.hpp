// The master key file ($COFFER_HOME/master.key): the Fernet key's URL-safe base64 text and a
// newline, mode 0600. Created once, never overwritten.
#pragma once

#include "crypto/fernet.hpp"

#include "core/result.hpp"

#include <filesystem>
#include <optional>

namespace coffer::crypto {

// nullopt when the file does not exist; an error when it cannot be read or holds no Fernet key.
// A file readable by group or others is tightened to 0600 (and `loosened` set).
struct LoadedKey {
    std::optional<FernetKey> key;
    bool loosened = false;  // its mode was wider than 0600 and has been corrected
};
core::Result<LoadedKey> load_key_file(const std::filesystem::path& path);

// Writes a new random key to `path` (0600, fsync'd, atomically: a temp file hard-linked into
// place, so an existing key is never replaced — that is an error).
core::Result<FernetKey> create_key_file(const std::filesystem::path& path);

}  // namespace coffer::crypto
