// Projects from working directories (see project.hpp).
#include "project.hpp"

#include <coffer/sha256.hpp>

namespace coffer::plugins::memory {

namespace fs = std::filesystem;

std::string slug(std::string_view text, std::size_t max) {
    std::string out;
    bool dash = false;
    for (char ch : text) {
        auto c = static_cast<unsigned char>(ch);
        if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
        bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!keep) {
            dash = !out.empty();
            continue;
        }
        if (dash && out.size() + 1 < max) out += '-';
        dash = false;
        if (out.size() >= max) break;
        out += static_cast<char>(c);
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out;
}

std::optional<Project> project_of(std::string_view cwd) {
    if (cwd.empty()) return std::nullopt;
    fs::path start = fs::path(std::string(cwd)).lexically_normal();
    if (!start.is_absolute()) return std::nullopt;
    if (start.has_filename() == false && start != start.root_path()) start = start.parent_path();
    fs::path root = start;
    std::error_code ec;
    for (fs::path p = start;; p = p.parent_path()) {
        if (fs::exists(p / ".git", ec)) {
            root = p;
            break;
        }
        if (p == p.root_path() || p.parent_path() == p) break;
    }
    Project out;
    out.root = root;
    auto name = slug(root.filename().string(), 40);
    out.id = (name.empty() ? std::string("project") : name) + "-" + coffer::sha256_hex(root.string()).substr(0, 8);
    return out;
}

}  // namespace coffer::plugins::memory
