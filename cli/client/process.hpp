// Small process helpers: where is our executable, where is coffer-daemon (and, from the SDK,
// is a pid alive).
#pragma once

#include <coffer/process.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::client {

// Is a pid alive: coffer::process_alive (coffer/process.hpp), the one check.
using coffer::process_alive;

// The process's command name (/proc/<pid>/comm, at most 15 characters); empty if unknown.
std::string process_name(int pid);

// Directory of the running executable (dirname of /proc/self/exe); empty if unknown.
std::filesystem::path self_exe_dir();

// First executable regular file called `name` in the directories of $PATH.
std::optional<std::filesystem::path> find_on_path(std::string_view name);

// The daemon binary: $COFFER_DAEMON_BIN if set, else `coffer-daemon` next to the running
// executable, else on $PATH.
std::optional<std::filesystem::path> find_daemon_executable();

}  // namespace coffer::client
