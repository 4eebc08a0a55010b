// The `coffer agent mcp …` and `coffer agent detect` commands, shared between their two files.
#pragma once

#include <filesystem>

namespace coffer::cli {

class Context;
struct Invocation;

// coffer-mcp-shim next to the running coffer; empty when it is not there.
std::filesystem::path resolve_shim();

// `coffer agent detect`.
int detect_agents(Context& ctx, const Invocation& inv);

}  // namespace coffer::cli
