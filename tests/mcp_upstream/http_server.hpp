// coffer-test-upstream over HTTP: Streamable HTTP at /mcp (POST answered with JSON, or with an SSE
// stream when the request leads to notifications; GET stream; DELETE; Mcp-Session-Id), or, with
// legacy=true, only the old HTTP+SSE transport (GET /sse + `endpoint` event, POST /messages).
// With --modern / --dual-era, 2026-07-28 requests go to one session-less Server after their Mcp-*
// headers are checked against the body; their answer is JSON (400/404 for modern errors) or an
// SSE stream (a subscriptions/listen's stays open until the client closes it).
#pragma once

#include "server.hpp"

namespace coffer::test_upstream {

// Listens on 127.0.0.1:port (0 = any), prints "PORT <n>" on stdout, serves until killed.
int run_http(asio::io_context& io, const Options& opts, unsigned short port, bool legacy);

}  // namespace coffer::test_upstream
