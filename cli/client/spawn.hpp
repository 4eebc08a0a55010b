// Starting a fully detached background process (a daemon).
#pragma once

#include "core/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace coffer::client {

// fork → setsid → fork → exec `exe args…`, with stdin/stdout on /dev/null, stderr written over
// `stderr_file` (0600; /dev/null when empty or it cannot be opened), cwd "/", default signal
// dispositions, no inherited descriptors beyond 0–2, and the environment inherited. The
// intermediate child is reaped here, so the daemon is re-parented and never our zombie.
// Returns the daemon's pid once exec succeeded; an exec failure is reported as an error.
core::Result<int> spawn_detached(const std::filesystem::path& exe, const std::vector<std::string>& args,
                                 const std::filesystem::path& stderr_file = {});

// COFFER_NO_SPAWN, as the CLI and the shim both read it: set to anything but "", "0", "false" or
// "no", neither starts a daemon when none is running.
bool no_spawn_from_env();

}  // namespace coffer::client
