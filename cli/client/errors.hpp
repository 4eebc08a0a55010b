// The daemon's error envelope {"error":{"code","message","details"}} ⇄ core::Error.
#pragma once

#include "core/error.hpp"

#include <boost/json/value.hpp>

#include <string_view>

namespace coffer::client {

// The code the REST contract pairs with an HTTP status (fallback when a body is not an envelope).
std::string_view code_for_status(int http_status);

// Reads an error response. A well-formed envelope is taken as is; anything else (HTML from a
// stranger on the port, an empty body …) becomes the status's code with a message that says so.
core::Error parse_error_envelope(int http_status, std::string_view body);

// Same, from an already-parsed body.
core::Error error_from_json(int http_status, const boost::json::value& body);

// {"error":{"code","message","details"}} — details omitted when null.
boost::json::value error_envelope(const core::Error& error);

}  // namespace coffer::client
