// Which project a session works in: the git root above its working directory (the nearest
// folder with a `.git` entry — a repository or a worktree), else the working directory itself.
// Its facts live in memory/projects/<id>/, where <id> is a readable slug of the folder's name
// plus 8 hex digits of SHA-256 of its absolute path ("coffer-1a2b3c4d"), so two checkouts named
// alike stay apart and the id survives a restart.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::plugins::memory {

struct Project {
    std::string id;               // "<slug>-<8 hex>"
    std::filesystem::path root;   // the git root (or the working directory)
    std::string collection() const { return "projects/" + id; }
};

// The project of `cwd` (an absolute path); nothing when cwd is empty or relative.
std::optional<Project> project_of(std::string_view cwd);

// Lower-case ASCII letters and digits joined by single '-', at most `max` characters; "" when
// the text has none (a name in another script).
std::string slug(std::string_view text, std::size_t max);

}  // namespace coffer::plugins::memory
