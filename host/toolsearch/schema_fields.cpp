#include "toolsearch/schema_fields.hpp"

namespace coffer::toolsearch {

namespace json = boost::json;

namespace {

void collect(const json::value& schema, int depth, std::vector<std::string>& out) {
    auto* o = schema.if_object();
    if (!o || depth > kMaxSchemaDepth) return;
    if (auto* props = o->if_contains("properties"); props && props->is_object()) {
        for (auto& [key, sub] : props->as_object()) {
            if (out.size() >= kMaxParameters) return;
            out.emplace_back(key);
            collect(sub, depth + 1, out);
        }
    }
    if (auto* items = o->if_contains("items")) collect(*items, depth + 1, out);
}

void collect_text(const json::value& schema, int depth, std::size_t& budget, std::vector<std::string>& out) {
    auto* o = schema.if_object();
    if (!o || depth > kMaxSchemaDepth) return;
    auto take = [&](const json::object& prop, std::string_view key) {
        auto* v = prop.if_contains(key);
        if (!v || !v->is_string() || budget == 0) return;
        std::string_view s = v->as_string();
        if (s.size() > budget) s = s.substr(0, budget);
        budget -= s.size();
        out.emplace_back(s);
    };
    if (auto* props = o->if_contains("properties"); props && props->is_object()) {
        for (auto& [key, sub] : props->as_object()) {
            if (auto* p = sub.if_object()) {
                take(*p, "title");
                take(*p, "description");
            }
            collect_text(sub, depth + 1, budget, out);
        }
    }
    if (auto* items = o->if_contains("items")) collect_text(*items, depth + 1, budget, out);
}

std::string string_member(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

std::vector<std::string> parameter_names(const json::value& input_schema) {
    std::vector<std::string> out;
    collect(input_schema, 1, out);
    return out;
}

std::vector<std::string> parameter_descriptions(const json::value& input_schema) {
    std::vector<std::string> out;
    std::size_t budget = kMaxSchemaTextBytes;
    collect_text(input_schema, 1, budget, out);
    return out;
}

ToolText tool_text(const json::object& tool) {
    ToolText t;
    t.name = string_member(tool, "name");
    t.description = string_member(tool, "description");
    if (t.description.empty()) t.description = string_member(tool, "title");
    if (auto* s = tool.if_contains("inputSchema")) {
        t.parameters = parameter_names(*s);
        t.schema_text = parameter_descriptions(*s);
    }
    return t;
}

}  // namespace coffer::toolsearch
