#include "spawn.hpp"

#include <cstdlib>

namespace coffer::mcp_server {

child::Resolved resolve_command(const std::string& command, const std::string& path_var, const std::string& cwd) {
    auto r = child::resolve(command, path_var, cwd);
    if (r.path.empty()) r.error = "runner not installed: " + command + (r.why.empty() ? "" : " (" + r.why + ")");
    return r;
}

std::string expand_home(const std::string& path) {
    if (path == "~" || path.rfind("~/", 0) == 0) {
        const char* home = ::getenv("HOME");
        return std::string(home ? home : "") + path.substr(1);
    }
    return path;
}

}  // namespace coffer::mcp_server
