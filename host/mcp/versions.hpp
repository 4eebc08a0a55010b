// MCP protocol versions (G-6): the four handshake ("legacy") revisions negotiated by initialize,
// and the stateless ("modern") 2026-07-28 declared on every request.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace coffer::mcp {

enum class Version { v2024_11_05, v2025_03_26, v2025_06_18, v2025_11_25, v2026_07_28 };

inline constexpr Version kLatestLegacy = Version::v2025_11_25;
inline constexpr Version kLatest = Version::v2026_07_28;
// What providers speak (ABI 1.2): requests and results in the 2025-11-25 shapes.
inline constexpr Version kProviderVersion = Version::v2025_11_25;

std::optional<Version> parse_version(std::string_view text) noexcept;
std::string_view to_string(Version v) noexcept;
std::vector<std::string_view> supported_versions();  // newest first

// initialize: the requested version when it is a legacy one we speak, else our latest legacy.
Version negotiate(std::string_view requested) noexcept;

constexpr bool is_modern(Version v) noexcept { return v >= Version::v2026_07_28; }
// JSON-RPC batches were part of MCP only in 2025-03-26.
constexpr bool allows_batch(Version v) noexcept { return v == Version::v2025_03_26; }
// Streamable HTTP (POST + GET stream, Mcp-Session-Id) exists from 2025-03-26 on.
constexpr bool has_streamable_http(Version v) noexcept { return v >= Version::v2025_03_26; }
// The `completions` server capability exists from 2025-03-26 on.
constexpr bool has_completions(Version v) noexcept { return v >= Version::v2025_03_26; }

}  // namespace coffer::mcp
