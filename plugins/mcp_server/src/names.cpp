#include "names.hpp"

#include <cctype>

namespace coffer::mcp_server {

namespace {
bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}
}  // namespace

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
    std::string out;
    out.reserve(server.size() + 2 + capability.size());
    out.append(server).append("__").append(capability);
    return out;
}

bool exposed_name_fits(std::string_view server, std::string_view capability) {
    if (capability.empty() || server.size() + 2 + capability.size() > kMaxExposedName) return false;
    for (char c : capability)
        if (!name_char(c)) return false;
    return true;
}

}  // namespace coffer::mcp_server
