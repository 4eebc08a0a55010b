// What the index reads from an MCP tool definition: its name, description and the names of its
// parameters — the keys of inputSchema.properties, and of nested object properties (also inside
// array items) down to a small depth.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace coffer::toolsearch {

struct ToolText {
    std::string name;
    std::string description;
    std::vector<std::string> parameters;
};

inline constexpr int kMaxSchemaDepth = 3;
inline constexpr std::size_t kMaxParameters = 128;

std::vector<std::string> parameter_names(const boost::json::value& input_schema);
// From a tool object {name, description?, inputSchema?}; title is used when there is no description.
ToolText tool_text(const boost::json::object& tool);

}  // namespace coffer::toolsearch
