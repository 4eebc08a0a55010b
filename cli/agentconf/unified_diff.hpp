// A unified diff of two texts (what `coffer agent mcp install --dry-run` prints): line based, three
// lines of context, the `--- a` / `+++ b` / `@@ -l,n +l,n @@` form that diff -u and patch use.
#pragma once

#include <string>
#include <string_view>

namespace coffer::agentconf {

// Empty when the texts are equal. A text without a final newline is marked the way diff marks it.
std::string unified_diff(std::string_view before, std::string_view after, std::string_view before_label,
                         std::string_view after_label, int context = 3);

}  // namespace coffer::agentconf
