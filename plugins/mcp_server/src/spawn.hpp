// Starting a stdio upstream: the lookup, environment and spawn rules are the SDK's
// (coffer/child_process.hpp, shared with the agent drivers); what is this plugin's own is the
// wording of a missing launcher ("runner not installed: <cmd>", G-27) and `~` in a configured cwd.
#pragma once

#include <coffer/child_process.hpp>

#include <string>

namespace coffer::mcp_server {

// The program a stdio upstream's `command` names, looked up on `path_var` (or against `cwd` for a
// relative path); `error` is "runner not installed: <cmd>[ (<why>)]" when it is missing.
child::Resolved resolve_command(const std::string& command, const std::string& path_var, const std::string& cwd);

// `~` or `~/…` at the start of a configured path, against $HOME.
std::string expand_home(const std::string& path);

}  // namespace coffer::mcp_server
