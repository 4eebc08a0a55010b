// The rules a SKILL.md must follow (SPEC S-1, the Agent Skills format):
//   name           required, 1–64 of [a-z0-9-], no leading/trailing/double hyphen, equal to the
//                  skill's folder name
//   description    required, 1–1024 characters
//   license        optional string
//   allowed-tools  optional string or list of strings
//   metadata       optional mapping of string keys to string values
//   compatibility  optional, 1–500 characters
// Other fields are kept and reported as warnings (agents define their own extensions).
#pragma once

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::plugins::skill {

inline constexpr std::size_t kMaxDescription = 1024;
inline constexpr std::size_t kMaxCompatibility = 500;

struct SkillInfo {
    std::string name;         // frontmatter name (when it is a string)
    std::string description;  // frontmatter description (when it is a string)
    boost::json::object frontmatter;
    std::vector<std::string> warnings;
};

// Checks the text of a SKILL.md. `folder_name` is the name the skill will have (its folder in
// the library) when known. Every problem is one message naming the field and the rule, e.g.
// "SKILL.md frontmatter: name must not start or end with a hyphen". Empty when valid.
std::vector<std::string> check_skill_md(std::string_view text, std::optional<std::string_view> folder_name,
                                        SkillInfo& info);

}  // namespace coffer::plugins::skill
