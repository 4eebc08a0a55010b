// What the index reads from an MCP tool definition: its name, its description, the names of its
// parameters — the keys of inputSchema.properties, and of nested object properties (also inside
// array items) down to a small depth — and the descriptions of those parameters. The server's
// own instructions (from its initialize result) are a field too; the caller fills them in, since
// they come from the server, not the tool.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace coffer::toolsearch {

struct ToolText {
    std::string name;
    std::string description;
    std::vector<std::string> parameters;   // parameter names
    std::vector<std::string> schema_text;  // parameter descriptions (and titles)
    std::string instructions;              // the server's instructions, shared by its tools
};

inline constexpr int kMaxSchemaDepth = 3;
inline constexpr std::size_t kMaxParameters = 128;
// A long parameter description says little more after its first sentences.
inline constexpr std::size_t kMaxSchemaTextBytes = 4096;

std::vector<std::string> parameter_names(const boost::json::value& input_schema);
// The descriptions and titles of the schema's properties, at the depths parameter_names reads,
// at most kMaxSchemaTextBytes in all.
std::vector<std::string> parameter_descriptions(const boost::json::value& input_schema);
// From a tool object {name, description?, inputSchema?}; title is used when there is no description.
ToolText tool_text(const boost::json::object& tool);

}  // namespace coffer::toolsearch
