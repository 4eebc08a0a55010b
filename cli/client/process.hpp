// Small process helpers: is a pid alive, where is our executable, where is coffer-daemon.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::client {

// kill(pid, 0) succeeds (or fails with EPERM: it exists but is not ours) and it is not a zombie.
bool process_alive(int pid);

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
