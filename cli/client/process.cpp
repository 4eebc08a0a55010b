#include "client/process.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace coffer::client {
namespace fs = std::filesystem;

namespace {

bool is_executable_file(const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

std::string process_name(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

fs::path self_exe_dir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path();
}

std::optional<fs::path> find_on_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    std::string_view rest(path);
    while (true) {
        auto colon = rest.find(':');
        std::string_view dir = rest.substr(0, colon);
        fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / std::string(name);
        if (is_executable_file(candidate)) return fs::absolute(candidate);
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return std::nullopt;
}

std::optional<fs::path> find_daemon_executable() {
    if (const char* forced = std::getenv("COFFER_DAEMON_BIN"); forced && *forced) {
        if (is_executable_file(forced)) return fs::path(forced);
        return std::nullopt;
    }
    if (fs::path dir = self_exe_dir(); !dir.empty()) {
        fs::path sibling = dir / "coffer-daemon";
        if (is_executable_file(sibling)) return sibling;
    }
    return find_on_path("coffer-daemon");
}

}  // namespace coffer::client
