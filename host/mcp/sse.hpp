// Server-Sent Events framing.
#pragma once

#include <string>
#include <string_view>

namespace coffer::mcp::sse {

// One event: optional `event:` name, then `data` split into one `data:` line per line.
std::string event(std::string_view data, std::string_view name = {});
// A comment line, used as a keep-alive.
inline std::string comment(std::string_view text = {}) { return ":" + std::string(text) + "\n\n"; }

}  // namespace coffer::mcp::sse
