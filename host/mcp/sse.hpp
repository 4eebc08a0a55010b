// Server-Sent Events framing.
#pragma once

#include <string>
#include <string_view>

namespace coffer::mcp::sse {

// One event: optional `id:` and `event:` name, then `data` split into one `data:` line per line
// (empty data: one empty `data:` line, as in a 2025-11-25 priming event).
std::string event(std::string_view data, std::string_view name = {}, std::string_view id = {});
// A comment line, used as a keep-alive.
inline std::string comment(std::string_view text = {}) { return ":" + std::string(text) + "\n\n"; }

}  // namespace coffer::mcp::sse
