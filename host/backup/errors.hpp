// Errors of backup and restore: a core::Error whose details carry a stable `reason`, so callers
// (REST clients, `coffer … --json`, tests) can tell the refusals apart.
#pragma once

#include "core/error.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace coffer::backup {

namespace reason {
inline constexpr std::string_view destination_invalid = "destination_invalid";     // not absolute, inside the vault …
inline constexpr std::string_view destination_not_empty = "destination_not_empty";
inline constexpr std::string_view not_a_vault = "not_a_vault";                     // no coffer.db to back up
inline constexpr std::string_view busy = "backup_in_progress";
inline constexpr std::string_view cancelled = "cancelled";                         // the daemon is stopping
inline constexpr std::string_view io = "io_error";
inline constexpr std::string_view database = "database_error";
inline constexpr std::string_view manifest_missing = "manifest_missing";
inline constexpr std::string_view manifest_invalid = "manifest_invalid";
inline constexpr std::string_view format_too_new = "format_too_new";
inline constexpr std::string_view schema_too_new = "schema_too_new";
inline constexpr std::string_view checksum_mismatch = "checksum_mismatch";
inline constexpr std::string_view unexpected_file = "unexpected_file";
inline constexpr std::string_view missing_file = "missing_file";
inline constexpr std::string_view daemon_running = "daemon_running";
inline constexpr std::string_view vault_not_empty = "vault_not_empty";
}  // namespace reason

inline core::Error error(std::string_view code, std::string_view why, std::string message,
                         boost::json::object extra = {}) {
    extra["reason"] = why;
    return core::Error::make(code, std::move(message), std::move(extra));
}

// An I/O failure on `path` (errno `err`).
core::Error io_error(const std::string& what, const std::string& path, int err);

}  // namespace coffer::backup
