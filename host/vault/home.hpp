// Where the vault is: the one resolution of --home / $COFFER_HOME for the daemon, the CLI and the
// shim, so all three find the same folder in every environment.
#pragma once

#include "core/result.hpp"

#include <filesystem>

namespace coffer::vault {

// The vault folder, first found of:
//   1. `override_dir` (--home) when not empty;
//   2. $COFFER_HOME when set and not empty;
//   3. $HOME/.coffer when HOME is set and not empty;
//   4. <home folder of the passwd entry of the real user id>/.coffer (HOME unset, e.g. under a
//      service manager or `env -i`).
// Always absolute (relative to the current folder) and lexically normal; links are not resolved
// (a vault reached through a link is the user's configuration). BAD_REQUEST when none applies
// (no HOME and no passwd entry with a home): set COFFER_HOME or pass --home.
core::Result<std::filesystem::path> resolve_home(const std::filesystem::path& override_dir = {});

}  // namespace coffer::vault
