#include "mcp/versions.hpp"

#include <coffer/mcp_revisions.hpp>

#include <iterator>

namespace coffer::mcp {

namespace {
namespace rev = ::coffer::mcp_revision;  // the names, shared with the mcp_server plugin
constexpr std::pair<Version, std::string_view> kNames[] = {
    {Version::v2026_07_28, rev::k2026_07_28}, {Version::v2025_11_25, rev::k2025_11_25},
    {Version::v2025_06_18, rev::k2025_06_18}, {Version::v2025_03_26, rev::k2025_03_26},
    {Version::v2024_11_05, rev::k2024_11_05},
};
static_assert(std::size(kNames) == std::size(rev::all), "every revision the SDK names has a Version");
}  // namespace

std::optional<Version> parse_version(std::string_view text) noexcept {
    for (auto& [v, s] : kNames)
        if (s == text) return v;
    return std::nullopt;
}

std::string_view to_string(Version v) noexcept {
    for (auto& [x, s] : kNames)
        if (x == v) return s;
    return "2025-11-25";
}

std::vector<std::string_view> supported_versions() {
    std::vector<std::string_view> out;
    for (auto& [v, s] : kNames) out.push_back(s);
    return out;
}

Version negotiate(std::string_view requested) noexcept {
    auto v = parse_version(requested);
    if (v && !is_modern(*v)) return *v;
    return kLatestLegacy;
}

}  // namespace coffer::mcp
