// JSON given on the command line (--config, --config-file, --args): parsed before any daemon call,
// so a typo is a usage error (exit 2) that says where the JSON broke.
#pragma once

#include "app/command.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

namespace coffer::cli {

// Parses `text` strictly (UTF-8, nesting up to 64, no key twice in an object); throws UsageError
// "invalid JSON in <what>: syntax error at byte N: …" / "…: duplicate key \"k\" at /p (byte N)…".
boost::json::value parse_json_argument(std::string_view text, std::string_view what,
                                       const std::string& group);

// --config JSON or --config-file FILE ("-" reads stdin); both given is a usage error. nullopt when
// neither is given.
std::optional<boost::json::value> config_argument(const Invocation& inv);

}  // namespace coffer::cli
