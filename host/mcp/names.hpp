// Namespacing (G-2): tools and prompts are exposed as `<server>__<name>`, split at the first
// `__`; resource URIs are prefixed reversibly as `coffer://<server>/<original URI>`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace coffer::mcp::names {

inline constexpr std::string_view kSeparator = "__";
inline constexpr std::string_view kUriScheme = "coffer://";

// ^[A-Za-z0-9_-]{1,64}$ — every exposed tool and prompt name.
bool valid_exposed(std::string_view name) noexcept;
// A server (resource) name whose names split back to it: valid, no "__", not ending in "_".
bool addressable_server(std::string_view server) noexcept;

std::string join(std::string_view server, std::string_view name);

struct Split {
    std::string_view server;
    std::string_view name;  // the provider's own name (or original URI)
};
// Splits at the first "__"; nothing when there is none or either side is empty.
std::optional<Split> split(std::string_view exposed) noexcept;

std::string prefix_uri(std::string_view server, std::string_view uri);
// The server and the original URI; nothing when `uri` is not one of ours.
std::optional<Split> unprefix_uri(std::string_view uri) noexcept;

}  // namespace coffer::mcp::names
