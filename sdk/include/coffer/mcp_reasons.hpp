// The stable machine-readable words an MCP capability provider puts in `error.data.reason` when a
// call fails before or outside the upstream's own answer. The gateway reads one of them:
// `upstream_exited` on a tools/call lets it retry the call once on the respawned upstream when the
// tool is annotated safe to repeat (docs/decisions/0037-safe-retry.md).
#pragma once

#include <string_view>

namespace coffer::mcp_reason {

inline constexpr std::string_view unhealthy = "unhealthy";
inline constexpr std::string_view runner_not_installed = "runner_not_installed";
inline constexpr std::string_view start_failed = "start_failed";
inline constexpr std::string_view upstream_exited = "upstream_exited";  // died with the call in flight
inline constexpr std::string_view timeout = "timeout";
inline constexpr std::string_view cancelled = "cancelled";
inline constexpr std::string_view closed = "closed";
inline constexpr std::string_view disabled = "disabled";
inline constexpr std::string_view credentials = "credential_unresolved";
inline constexpr std::string_view http_error = "http_error";
inline constexpr std::string_view protocol = "protocol_error";

}  // namespace coffer::mcp_reason
