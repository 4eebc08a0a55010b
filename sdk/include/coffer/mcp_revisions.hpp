// The MCP protocol revisions Coffer knows, newest first — the one list the gateway (which speaks
// all of them to clients) and the mcp_server plugin (which offers them to upstreams) share.
#pragma once

#include <string_view>

namespace coffer::mcp_revision {

inline constexpr std::string_view k2026_07_28 = "2026-07-28";  // stateless; HTTP only
inline constexpr std::string_view k2025_11_25 = "2025-11-25";
inline constexpr std::string_view k2025_06_18 = "2025-06-18";
inline constexpr std::string_view k2025_03_26 = "2025-03-26";  // the only one with JSON-RPC batches
inline constexpr std::string_view k2024_11_05 = "2024-11-05";  // HTTP+SSE transport

// Every revision, newest first.
inline constexpr std::string_view all[] = {k2026_07_28, k2025_11_25, k2025_06_18, k2025_03_26, k2024_11_05};

// The session-based revisions (everything before 2026-07-28), newest first: what an initialize
// handshake can negotiate.
inline constexpr std::string_view with_sessions[] = {k2025_11_25, k2025_06_18, k2025_03_26, k2024_11_05};

}  // namespace coffer::mcp_revision
