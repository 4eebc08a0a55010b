// MCP tool results (see tool_result.hpp).
#include "tool_result.hpp"

namespace coffer::knowledge {

namespace json = boost::json;

std::string tool_ok(std::string_view text, const json::value& structured) {
    json::object r{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}};
    if (structured.is_object()) r["structuredContent"] = structured;
    r["isError"] = false;
    return json::serialize(r);
}

std::string tool_error(std::string_view message) {
    return json::serialize(json::object{{"content", json::array{json::object{{"type", "text"}, {"text", message}}}},
                                        {"isError", true}});
}

}  // namespace coffer::knowledge
