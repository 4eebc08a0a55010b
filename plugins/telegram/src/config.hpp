// A Telegram channel's own config members (next to the core's `agent` and `cwd`): the bot token
// as a credref and the Bot API's base URL (the public API, or a loopback stand-in over http).
#pragma once

#include <coffer/sdk.hpp>

#include <string>

namespace coffer::telegram {

namespace json = boost::json;

inline constexpr const char* kDefaultApiBase = "https://api.telegram.org";

struct Config {
    std::string token_ref;  // without "credref:"
    std::string api_base = kDefaultApiBase;
};

void validate_config(const json::object& config, sdk::Validation& v);
// Throws sdk::Error(COFFER_E_INVALID) with the errors when the config is not valid.
Config parse_config(const json::object& config);

const char* config_schema();

}  // namespace coffer::telegram
