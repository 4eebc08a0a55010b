// Bridging provider answers (2025-11-25 shapes) to the downstream protocol version (G-6).
// Legacy revisions get the provider's bytes unchanged; 2026-07-28 gets the members it requires
// prepended (resultType, and caching hints where the revision demands them) and its renumbered
// error codes. Nothing else of an upstream result is rewritten.
#pragma once

#include "mcp/versions.hpp"

#include <string>
#include <string_view>

namespace coffer::mcp::bridge {

std::string result(Version downstream, std::string_view method, std::string_view raw_result);
std::string error(Version downstream, std::string_view method, std::string_view raw_error);

// The rank of an MCP logging level ("debug" = 0 … "emergency" = 7); -1 when unknown.
int log_rank(std::string_view level);

}  // namespace coffer::mcp::bridge
