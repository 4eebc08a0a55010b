// Error codes produced on the client side (the daemon's codes are in core/error.hpp).
#pragma once

#include <string_view>

namespace coffer::client::code {

// No live daemon could be found or started, or the connection to it failed.
inline constexpr std::string_view daemon_unreachable = "DAEMON_UNREACHABLE";
// The daemon answered something that is not the documented JSON.
inline constexpr std::string_view bad_response = "BAD_RESPONSE";

}  // namespace coffer::client::code
