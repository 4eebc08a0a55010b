#include "curation/types.hpp"

namespace coffer::curation {

std::string_view to_string(Type t) {
    switch (t) {
        case Type::tool: return "tool";
        case Type::resource: return "resource";
        case Type::prompt: return "prompt";
    }
    return "tool";
}

std::string_view plural(Type t) {
    switch (t) {
        case Type::tool: return "tools";
        case Type::resource: return "resources";
        case Type::prompt: return "prompts";
    }
    return "tools";
}

std::string_view title(Type t) {
    switch (t) {
        case Type::tool: return "Tool";
        case Type::resource: return "Resource";
        case Type::prompt: return "Prompt";
    }
    return "Tool";
}

std::optional<Type> parse_type(std::string_view w) {
    for (auto t : {Type::tool, Type::resource, Type::prompt})
        if (w == to_string(t) || w == plural(t)) return t;
    return std::nullopt;
}

}  // namespace coffer::curation
