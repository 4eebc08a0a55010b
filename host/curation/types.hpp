// The capability types a server offers (resource templates curated one by one like the rest,
// G-20) and the words that name them.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace coffer::curation {

enum class Type { tool, resource, prompt, resource_template };
inline constexpr std::size_t kTypeCount = 4;

std::string_view to_string(Type t);          // "tool", "resource", "prompt", "template"
std::string_view plural(Type t);             // "tools", "resources", "prompts", "templates"
std::optional<Type> parse_type(std::string_view word);  // singular or plural
// "Tool", "Resource", "Prompt", "Resource template" (for messages such as "Tool x__y is disabled").
std::string_view title(Type t);

}  // namespace coffer::curation
