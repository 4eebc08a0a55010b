#include "core/error.hpp"

namespace coffer::core {

int http_status(std::string_view c) {
    if (c == code::bad_request || c == code::validation_failed || c == code::unknown_kind) return 400;
    if (c == code::unauthorized) return 401;
    if (c == code::forbidden) return 403;
    if (c == code::not_found) return 404;
    if (c == code::conflict) return 409;
    if (c == code::payload_too_large) return 413;
    if (c == code::unsupported) return 501;
    if (c == code::unavailable) return 503;
    if (c == code::plugin_error) return 502;
    return 500;
}

}  // namespace coffer::core
