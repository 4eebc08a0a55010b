// Help and usage texts, generated from the command table.
#pragma once

#include "app/command.hpp"

#include <string>

namespace coffer::cli {

// `coffer --help`: every group, global options, exit codes, environment.
std::string overview_help(const Registry& registry);

// `coffer <group> --help`: the group's commands with their options.
std::string group_help(const Registry& registry, const std::string& group);

// The short usage printed after a usage error: the command's synopsis when `command` names one
// of the group, else the group's synopsis lines, else the overview's.
std::string usage_text(const Registry& registry, const std::string& group,
                       const std::string& command = {});

}  // namespace coffer::cli
