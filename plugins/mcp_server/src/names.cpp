#include "names.hpp"

#include <coffer/mcp_names.hpp>

#include <cctype>

namespace coffer::mcp_server {

using mcp_names::name_char;

std::string server_name_problem(std::string_view name) {
    if (name.empty()) return "must not be empty";
    if (name.size() > kMaxServerName)
        return "is " + std::to_string(name.size()) + " characters; an mcp_server name has at most " +
               std::to_string(kMaxServerName) + " so that \"<name>__<tool>\" fits in 64";
    for (char c : name)
        if (!name_char(c)) return "may contain only letters, digits, '_' and '-'";
    if (name.find("__") != std::string_view::npos)
        return "must not contain \"__\" (the gateway splits \"<server>__<tool>\" at the first \"__\")";
    if (name.back() == '_') return "must not end with '_' (\"<server>__<tool>\" would split in the wrong place)";
    std::string lower;
    for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "coffer") return "\"coffer\" is reserved for Coffer's built-in tools (coffer__*)";
    return {};
}

std::string exposed_name(std::string_view server, std::string_view capability) {
    return mcp_names::join(server, capability);
}

bool exposed_name_fits(std::string_view server, std::string_view capability) {
    return !capability.empty() && mcp_names::valid_exposed(mcp_names::join(server, capability));
}

}  // namespace coffer::mcp_server
