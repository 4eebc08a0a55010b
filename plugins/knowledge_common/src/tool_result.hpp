// MCP tools/call results, as the MCP specification shapes them: text content for the model,
// structuredContent for programs, and isError for a failure the model can act on (bad arguments,
// a path outside the knowledge base, a missing document). Protocol-level problems (an unknown
// tool, malformed params) are JSON-RPC errors instead (tool_session.cpp).
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace coffer::knowledge {

// {"content":[{"type":"text","text":…}],"structuredContent":…?,"isError":false} as text.
std::string tool_ok(std::string_view text, const boost::json::value& structured = nullptr);
// {"content":[{"type":"text","text":message}],"isError":true} as text.
std::string tool_error(std::string_view message);

}  // namespace coffer::knowledge
