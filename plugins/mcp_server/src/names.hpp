// Server-name rules (G-2): the gateway exposes `<server>__<name>` and splits at the first `__`,
// and every exposed name must match ^[A-Za-z0-9_-]{1,64}$.
#pragma once

#include <coffer/mcp_names.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace coffer::mcp_server {

// Longest server name: leaves room for "__" plus a 30-character capability name within 64.
inline constexpr std::size_t kMaxServerName = 32;
inline constexpr std::size_t kMaxExposedName = mcp_names::kMaxExposed;  // the gateway's rule (coffer/mcp_names.hpp)

// Why `name` cannot be a server name, or "" when it can.
std::string server_name_problem(std::string_view name);

// The exposed form of an upstream capability name, and whether it fits the gateway's rule.
std::string exposed_name(std::string_view server, std::string_view capability);
bool exposed_name_fits(std::string_view server, std::string_view capability);

}  // namespace coffer::mcp_server
