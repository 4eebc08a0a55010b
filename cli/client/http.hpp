// A synchronous HTTP/1.1 client for loopback calls (one request per connection).
// The only translation unit that includes Boost.Beast is http.cpp.
#pragma once

#include "core/result.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::client {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
    std::string method = "GET";     // GET, POST, PUT, PATCH, DELETE …
    std::string host = "127.0.0.1"; // an IP literal
    std::uint16_t port = 0;
    std::string target = "/";       // path and query, already encoded
    Headers headers;                // Host, Content-Length and Connection are set automatically
    std::optional<std::string> body;
};

struct HttpResponse {
    int status = 0;
    Headers headers;
    std::string body;

    // Case-insensitive lookup of the first header with this name.
    std::optional<std::string> header(std::string_view name) const;
};

struct HttpTimeouts {
    std::chrono::milliseconds connect{2000};
    std::chrono::milliseconds request{30000}; // write + read of the whole exchange
};

// Sends one request. A failure to connect, a timeout or a broken exchange is an Error with code
// DAEMON_UNREACHABLE (never an exception); any HTTP status is a successful exchange.
core::Result<HttpResponse> http_send(const HttpRequest& request, const HttpTimeouts& timeouts = {});

}  // namespace coffer::client
