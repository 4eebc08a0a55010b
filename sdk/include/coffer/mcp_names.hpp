// How the gateway namespaces what it aggregates, decided once for the host and the mcp_server
// plugin: tools and prompts are exposed as `<server>__<name>` (split at the first `__`, every
// exposed name ^[A-Za-z0-9_-]{1,64}$), resource URIs are prefixed reversibly as
// `coffer://<server>/<original URI>`. The gateway splits and prefixes; the plugin checks, when a
// server is registered and when its capabilities are listed, that every name will fit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::mcp_names {

inline constexpr std::string_view kSeparator = "__";
inline constexpr std::string_view kUriScheme = "coffer://";
inline constexpr std::size_t kMaxExposed = 64;  // ^[A-Za-z0-9_-]{1,64}$ for every exposed name

struct Split {
    std::string_view server;
    std::string_view name;  // the provider's own name (or original URI)
};

// A character allowed in an exposed name: [A-Za-z0-9_-].
inline bool name_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// ^[A-Za-z0-9_-]{1,64}$ — every exposed tool and prompt name.
inline bool valid_exposed(std::string_view name) noexcept {
    if (name.empty() || name.size() > kMaxExposed) return false;
    for (char c : name)
        if (!name_char(c)) return false;
    return true;
}

// A server (resource) name whose names split back to it: valid, no "__", not ending in "_".
inline bool addressable_server(std::string_view server) noexcept {
    return valid_exposed(server) && server.find(kSeparator) == std::string_view::npos && server.back() != '_';
}

// `<server>__<name>`.
inline std::string join(std::string_view server, std::string_view name) {
    std::string out;
    out.reserve(server.size() + kSeparator.size() + name.size());
    out.append(server).append(kSeparator).append(name);
    return out;
}

// Splits at the first "__"; nothing when there is none or either side is empty.
inline std::optional<Split> split(std::string_view exposed) noexcept {
    auto at = exposed.find(kSeparator);
    if (at == std::string_view::npos || at == 0 || at + kSeparator.size() >= exposed.size()) return std::nullopt;
    return Split{exposed.substr(0, at), exposed.substr(at + kSeparator.size())};
}

// `coffer://<server>/<original URI>`.
inline std::string prefix_uri(std::string_view server, std::string_view uri) {
    std::string out;
    out.reserve(kUriScheme.size() + server.size() + 1 + uri.size());
    out.append(kUriScheme).append(server).append("/").append(uri);
    return out;
}

// The server and the original URI; nothing when `uri` is not one of ours.
inline std::optional<Split> unprefix_uri(std::string_view uri) noexcept {
    if (uri.substr(0, kUriScheme.size()) != kUriScheme) return std::nullopt;
    auto rest = uri.substr(kUriScheme.size());
    auto slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 >= rest.size()) return std::nullopt;
    return Split{rest.substr(0, slash), rest.substr(slash + 1)};
}

}  // namespace coffer::mcp_names
