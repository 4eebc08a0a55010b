// Starting an upstream child: resolve the launcher on PATH (G-27), then posix_spawn it with
// pipes for stdin/stdout/stderr as the leader of its own process group (G-12).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace coffer::mcp_server {

struct Resolved {
    std::string path;   // absolute or as given (contains '/'), empty when not found
    std::string error;  // "" or why not, e.g. "runner not installed: npx"
};

// Looks `command` up like execvp would: a name with '/' is used as is (relative to `cwd` when
// relative), anything else is searched on `path_var`. Must exist, be a regular file and be
// executable by us.
Resolved resolve_command(const std::string& command, const std::string& path_var, const std::string& cwd);

// The environment for a child: this process's environment with `overrides` applied.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides);
// The value of `name` in an environment built by child_environment (or "").
std::string env_value(const std::vector<std::string>& env, std::string_view name);
// Expands a leading "~" with $HOME.
std::string expand_home(const std::string& path);

struct Child {
    long pid = -1;
    int in = -1, out = -1, err = -1;  // our ends: write to `in`, read `out` and `err` (CLOEXEC)
};

// Spawns `path` with `argv` (argv[0] included), `env` and `cwd` ("" = ours) in a new process
// group with default signal dispositions and an empty signal mask; every other descriptor is
// closed in the child. Returns the child or an error message.
std::optional<Child> spawn_child(const std::string& path, const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env, const std::string& cwd, std::string& error);

}  // namespace coffer::mcp_server
