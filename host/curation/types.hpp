// The three capability types a server offers and the words that name them.
#pragma once

#include <optional>
#include <string_view>

namespace coffer::curation {

enum class Type { tool, resource, prompt };

std::string_view to_string(Type t);          // "tool", "resource", "prompt"
std::string_view plural(Type t);             // "tools", "resources", "prompts"
std::optional<Type> parse_type(std::string_view word);  // singular or plural
// "Tool", "Resource", "Prompt" (for messages such as "Tool x__y is disabled").
std::string_view title(Type t);

}  // namespace coffer::curation
