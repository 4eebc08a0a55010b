// The agents a skill is delivered to, and where their skill folders are. Roots follow $HOME (of
// the daemon), so tests and sandboxes use a temporary one.
//   claude_code  $HOME/.claude/skills/<name>/
//   codex        $HOME/.agents/skills/<name>/
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::plugins::skill {

namespace fs = std::filesystem;

// Every target id, in a fixed order (also the default when a config names none).
const std::vector<std::string>& all_targets();
bool known_target(std::string_view id);
// The folder holding the target's skills ($HOME/.claude/skills …); nothing when HOME is unknown.
std::optional<fs::path> target_root(std::string_view id);
// $HOME, else the password database's home; "" when neither is known.
std::string home_dir();

}  // namespace coffer::plugins::skill
