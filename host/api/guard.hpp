// Request guards: loopback Host/Origin (DNS-rebinding defence) and the token.
#pragma once

#include "http/message.hpp"

#include <optional>
#include <string>

namespace coffer::api {

bool is_loopback_host(const std::string& host_header);  // "127.0.0.1:38470", "localhost", "[::1]:1"
bool is_loopback_origin(const std::string& origin);      // "http://localhost:3000"
// Returns the refusal message, or nothing when the request passes the Host/Origin checks.
std::optional<std::string> check_origin(const http::Request& r);

}  // namespace coffer::api
