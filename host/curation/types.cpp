#include "curation/types.hpp"

namespace coffer::curation {

std::string_view to_string(Type t) {
    switch (t) {
        case Type::tool: return "tool";
        case Type::resource: return "resource";
        case Type::prompt: return "prompt";
        case Type::resource_template: return "template";
    }
    return "tool";
}

std::string_view plural(Type t) {
    switch (t) {
        case Type::tool: return "tools";
        case Type::resource: return "resources";
        case Type::prompt: return "prompts";
        case Type::resource_template: return "templates";
    }
    return "tools";
}

std::string_view title(Type t) {
    switch (t) {
        case Type::tool: return "Tool";
        case Type::resource: return "Resource";
        case Type::prompt: return "Prompt";
        case Type::resource_template: return "Resource template";
    }
    return "Tool";
}

std::optional<Type> parse_type(std::string_view w) {
    for (auto t : {Type::tool, Type::resource, Type::prompt, Type::resource_template})
        if (w == to_string(t) || w == plural(t)) return t;
    return std::nullopt;
}

}  // namespace coffer::curation
