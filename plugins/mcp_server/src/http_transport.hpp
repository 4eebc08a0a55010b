// HTTP upstream (G-4): the Streamable HTTP client (POST per message with Accept: application/json,
// text/event-stream; JSON or SSE answers; Mcp-Session-Id; MCP-Protocol-Version; a GET stream for
// server-initiated messages; DELETE on close), falling back to the legacy HTTP+SSE transport
// (GET stream + `endpoint` event + POSTs) when the first POST is answered 400/404/405.
// The only translation unit that includes Boost.Beast.
#pragma once

#include "config.hpp"
#include "runtime.hpp"
#include "transport.hpp"

#include <chrono>
#include <functional>
#include <memory>

namespace coffer::mcp_server {

// Checks in the background that the URL's host accepts TCP connections (no HTTP request is
// sent); `done` gets "" or why not, on the I/O thread. Lets the status of a freshly registered
// HTTP server say it is down before anything used it.
void check_reachable(Runtime& rt, const std::string& url, std::chrono::milliseconds limit,
                     std::function<void(std::string error)> done);

std::shared_ptr<Transport> make_http_transport(Runtime& rt, std::shared_ptr<const ServerConfig> cfg,
                                               TransportEvents& events);

}  // namespace coffer::mcp_server
