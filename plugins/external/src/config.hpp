// An external channel's config: the adapter program (command, args, env whose values may be
// credref:NAME, resolved at start and handed to the child only) and the capabilities it
// declares (the host asks for them before the child runs, so they live in the config).
#pragma once

#include <coffer/sdk.hpp>

#include <string>
#include <utility>
#include <vector>

namespace coffer::external {

namespace json = boost::json;

struct Config {
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;  // values as configured (credref: unresolved)
    json::object capabilities;                             // the defaults with the configured members over them
};

void validate_config(const json::object& config, sdk::Validation& v);
Config parse_config(const json::object& config);  // throws sdk::Error(COFFER_E_INVALID)
const char* config_schema();

}  // namespace coffer::external
