// Resolving `credref:<ref>` values at spawn/connect time (G-13): a copy of the config whose env
// and header values carry the secrets, made just before the transport opens and owned by that
// transport alone. The stored config keeps the references; nothing here logs a value, and an
// error names the reference and where it is used, never what it resolved to.
#pragma once

#include "config.hpp"

#include <coffer/sdk.hpp>

#include <memory>
#include <string>

namespace coffer::mcp_server {

struct ResolvedConfig {
    std::shared_ptr<const ServerConfig> config;  // null when `error` is set
    std::string error;                           // for people: which reference, where, why
};

// `cfg` itself when it holds no reference; otherwise a copy with every reference replaced.
ResolvedConfig resolve_credentials(const std::shared_ptr<const ServerConfig>& cfg, const sdk::Host& host);

// Whether `cfg` sets the header `name` (compared case-insensitively).
bool has_header(const ServerConfig& cfg, std::string_view name);
// A copy of `cfg` that also sends `Authorization: Bearer <token>`, wiped when let go.
std::shared_ptr<const ServerConfig> with_bearer(const std::shared_ptr<const ServerConfig>& cfg, const std::string& token);

}  // namespace coffer::mcp_server
