#include "targets.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace coffer::plugins::skill {

const std::vector<std::string>& all_targets() {
    static const std::vector<std::string> ids{"claude_code", "codex"};
    return ids;
}

bool known_target(std::string_view id) {
    for (auto& t : all_targets())
        if (t == id) return true;
    return false;
}

std::string home_dir() {
    if (const char* h = std::getenv("HOME"); h && *h) return h;
    struct passwd pw {};
    struct passwd* out = nullptr;
    char buf[4096];
    if (::getpwuid_r(::getuid(), &pw, buf, sizeof buf, &out) == 0 && out && out->pw_dir) return out->pw_dir;
    return {};
}

std::optional<fs::path> target_root(std::string_view id) {
    auto home = home_dir();
    if (home.empty()) return std::nullopt;
    if (id == "claude_code") return fs::path(home) / ".claude" / "skills";
    if (id == "codex") return fs::path(home) / ".agents" / "skills";
    return std::nullopt;
}

}  // namespace coffer::plugins::skill
