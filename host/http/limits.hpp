// What the HTTP server allows one client: sizes, deadlines and the number of open connections.
// The defaults are the documented ones (docs/rest-api.md, "Limits"; ADR 0023); the daemon's
// COFFER_HTTP_* options override the deadlines and the cap.
#pragma once

#include <chrono>
#include <cstddef>

namespace coffer::http {

struct Limits {
    std::size_t max_body = 4 * 1024 * 1024;
    std::size_t max_header = 64 * 1024;
    // From accept (or from a keep-alive request's first byte) to the end of the request head.
    std::chrono::milliseconds header_timeout{10'000};
    // From the end of the head to the end of the body.
    std::chrono::milliseconds body_timeout{30'000};
    // Keep-alive: from the end of a response to the first byte of the next request. Above the
    // shim's 50 s pool lifetime, so the shim retires its idle connections first.
    std::chrono::milliseconds idle_timeout{60'000};
    // Open connections. At the cap, the connection idle the longest (no request being handled,
    // no response streaming) is closed to make room; if every connection is busy, the new one is.
    std::size_t max_connections = 512;
};

}  // namespace coffer::http
