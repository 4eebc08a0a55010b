// The 2026-07-28 (stateless) revision as an upstream client speaks it: reading a discovery
// answer, the per-request `_meta` that replaces initialize, the headers that mirror the body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-* from `x-mcp-header`), tools whose
// annotations are invalid left out of tools/list, and the multi round-trip (input_required)
// results. Pure functions over JSON texts; the Connection decides when to use them.
#pragma once

#include <coffer/mcp_stateless.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::mcp_server::stateless {

inline constexpr std::string_view kVersion = "2026-07-28";

// What `server/discover` answered.
struct Discovery {
    std::vector<std::string> supported;  // supportedVersions
    std::string capabilities;            // raw JSON object ("{}" when absent)
    std::string server_info;             // raw JSON ("" when absent)
    std::string instructions;            // the server's instructions ("" when absent)
    bool speaks(std::string_view version) const;
};
std::optional<Discovery> read_discovery(std::string_view result);

// The versions an UnsupportedProtocolVersion error (-32022) lists; nullopt for any other error.
std::optional<std::vector<std::string>> unsupported_version(std::string_view error);

// `params` (a raw JSON object) with the protocol fields in its `_meta`: version, the client's
// capabilities and identity, and the log level when one was set ("" for none).
std::string with_meta(std::string_view params, std::string_view client_capabilities, std::string_view log_level);

// `x-mcp-header` annotations (coffer/mcp_stateless.hpp) of the server's tools, by tool name.
using mcp_stateless::HeaderParam;
using mcp_stateless::HeaderScan;
using ToolHeaders = std::map<std::string, std::vector<HeaderParam>>;
HeaderScan scan_headers(std::string_view input_schema);  // of a raw inputSchema

// A tools/list result with invalid tools removed; their names and reasons go to `rejected`,
// the annotations of the others to `learned`.
std::string filter_tools(std::string_view result, ToolHeaders& learned,
                         std::vector<std::pair<std::string, std::string>>& rejected);

// The headers a request carries on Streamable HTTP.
std::vector<std::pair<std::string, std::string>> request_headers(std::string_view method, std::string_view params,
                                                                  const ToolHeaders& tools);

// An input_required result: the requests the client must answer (key → {method, params} text)
// and the opaque state to send back. nullopt when the result is complete.
struct InputRequired {
    std::vector<std::pair<std::string, std::string>> requests;
    std::optional<std::string> state;  // raw JSON string token
};
std::optional<InputRequired> read_input_required(std::string_view result);

// `params` for the retry: the answers (key → raw result) and the state added, earlier ones replaced.
std::string with_input(std::string_view params, const std::map<std::string, std::string>& responses,
                       const std::optional<std::string>& state);

}  // namespace coffer::mcp_server::stateless
