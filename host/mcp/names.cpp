#include "mcp/names.hpp"

namespace coffer::mcp::names {

namespace {
bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}
}  // namespace

bool valid_exposed(std::string_view name) noexcept {
    if (name.empty() || name.size() > 64) return false;
    for (char c : name)
        if (!name_char(c)) return false;
    return true;
}

bool addressable_server(std::string_view server) noexcept {
    return valid_exposed(server) && server.find(kSeparator) == std::string_view::npos && server.back() != '_';
}

std::string join(std::string_view server, std::string_view name) {
    std::string out;
    out.reserve(server.size() + kSeparator.size() + name.size());
    out.append(server).append(kSeparator).append(name);
    return out;
}

std::optional<Split> split(std::string_view exposed) noexcept {
    auto at = exposed.find(kSeparator);
    if (at == std::string_view::npos || at == 0 || at + kSeparator.size() >= exposed.size()) return std::nullopt;
    return Split{exposed.substr(0, at), exposed.substr(at + kSeparator.size())};
}

std::string prefix_uri(std::string_view server, std::string_view uri) {
    std::string out;
    out.reserve(kUriScheme.size() + server.size() + 1 + uri.size());
    out.append(kUriScheme).append(server).append("/").append(uri);
    return out;
}

std::optional<Split> unprefix_uri(std::string_view uri) noexcept {
    if (uri.substr(0, kUriScheme.size()) != kUriScheme) return std::nullopt;
    auto rest = uri.substr(kUriScheme.size());
    auto slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 >= rest.size()) return std::nullopt;
    return Split{rest.substr(0, slash), rest.substr(slash + 1)};
}

}  // namespace coffer::mcp::names
