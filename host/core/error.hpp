// coffer::core::Error — the one error value that crosses component boundaries.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace coffer::core {

// Stable machine-readable codes (they appear in the REST error envelope).
namespace code {
inline constexpr std::string_view bad_request = "BAD_REQUEST";
inline constexpr std::string_view validation_failed = "VALIDATION_FAILED";
inline constexpr std::string_view not_found = "NOT_FOUND";
inline constexpr std::string_view unknown_kind = "UNKNOWN_KIND";
inline constexpr std::string_view conflict = "CONFLICT";
inline constexpr std::string_view unauthorized = "UNAUTHORIZED";
inline constexpr std::string_view forbidden = "FORBIDDEN";
inline constexpr std::string_view payload_too_large = "PAYLOAD_TOO_LARGE";
inline constexpr std::string_view unsupported = "UNSUPPORTED";
inline constexpr std::string_view unavailable = "UNAVAILABLE";
inline constexpr std::string_view plugin_error = "PLUGIN_ERROR";
inline constexpr std::string_view internal = "INTERNAL";
}  // namespace code

struct Error {
    std::string code;         // one of code::*
    std::string message;      // says what happened and what to do
    boost::json::value details = nullptr;

    static Error make(std::string_view c, std::string m, boost::json::value d = nullptr) {
        return Error{std::string(c), std::move(m), std::move(d)};
    }
};

// HTTP status for an error code.
int http_status(std::string_view code);

}  // namespace coffer::core
