// Skill names: 1–64 characters of [a-z0-9-], no leading, trailing or doubled hyphen. The same
// rule applies to the resource name, the library folder and the SKILL.md frontmatter `name`.
#pragma once

#include <coffer/utf8.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::plugins::skill {

inline constexpr std::size_t kMaxNameLength = 64;

// Why `name` is not a valid skill name ("must be 1–64 characters long (it has 70)", …), or
// nothing when it is. The text completes a sentence that begins with the field's name.
std::optional<std::string> name_problem(std::string_view name);

// UTF-8 checks (well-formedness, code-point counts) come from the SDK: coffer/utf8.hpp.

}  // namespace coffer::plugins::skill
