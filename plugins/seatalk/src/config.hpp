// A SeaTalk channel's own config members: the app id, the app secret and the callback signing
// secret (both credref:NAME), the Open Platform base URL and the loopback port coffer-callback
// listens on (0: any free one, shown in status).
#pragma once

#include <coffer/sdk.hpp>

#include <cstdint>
#include <string>

namespace coffer::seatalk {

namespace json = boost::json;

struct Config {
    std::string app_id, app_secret_ref, signing_secret_ref;
    std::string api_base = "https://openapi.seatalk.io";
    std::uint16_t callback_port = 0;
};

void validate_config(const json::object& config, sdk::Validation& v);
Config parse_config(const json::object& config);  // throws sdk::Error(COFFER_E_INVALID)
const char* config_schema();

}  // namespace coffer::seatalk
