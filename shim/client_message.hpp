// The only client messages the shim changes on their way to the daemon: the client's
// `initialize` and stateless-era (2026-07-28+) messages get the shim's identity in
// params._meta (`coffer/agent`, `coffer/cwd`); the stateless ones also get the metadata headers
// that revision requires. Everything else is forwarded as it came.
#pragma once

#include "shim/http.hpp"

#include <coffer/mcp_stateless.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::shim {

// params._meta key of a stateless-era message naming its protocol revision.
inline constexpr const char* kStatelessVersionKey = "io.modelcontextprotocol/protocolVersion";
// The first revision without sessions (no initialize, no Mcp-Session-Id, no GET stream).
inline constexpr const char* kFirstStatelessVersion = "2026-07-28";

// What the shim says about itself to the daemon.
struct Identity {
    std::string agent;  // --agent; omitted when empty
    std::string cwd;    // the shim's working directory: the client's project
    std::vector<std::string> channels;  // --channel; omitted when empty
};

struct AnnotatedInitialize {
    std::string body;    // the message with our identity in params._meta
    std::string params;  // its params, serialized: repeated when the session is re-opened
};
// nullopt when `line` is not a JSON object (it is then forwarded as is).
std::optional<AnnotatedInitialize> annotate_initialize(std::string_view line, const Identity& who);

struct AnnotatedStateless {
    std::string body;    // the message with our identity in params._meta
    HeaderList headers;  // MCP-Protocol-Version, Mcp-Name for tools/call, resources/read, prompts/get,
                         // and Mcp-Param-* for a tools/call of a tool with x-mcp-header arguments
};
// The x-mcp-header annotations of the tools the client listed, by (exposed) tool name.
using ToolHeaders = std::map<std::string, std::vector<mcp_stateless::HeaderParam>, std::less<>>;
// nullopt unless params._meta names a protocol revision (only params._meta decides: the key may
// also appear inside a legacy call's arguments).
std::optional<AnnotatedStateless> annotate_stateless(std::string_view line, std::string_view method,
                                                     const Identity& who, const ToolHeaders& tools = {});
// Learns the annotations of every tool in a tools/list response (a JSON-RPC message text).
void learn_tool_headers(std::string_view response, ToolHeaders& tools);

}  // namespace coffer::shim
