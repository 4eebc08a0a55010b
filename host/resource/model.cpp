#include "resource/model.hpp"

namespace coffer::resource {

boost::json::object Resource::to_json() const {
    return boost::json::object{{"uid", uid},         {"kind", kind},       {"name", name},
                               {"description", description}, {"config", config}, {"enabled", enabled},
                               {"scope", scope},     {"created_at", created_at}, {"updated_at", updated_at}};
}

const char* to_string(Actor a) {
    switch (a) {
        case Actor::cli: return "cli";
        case Actor::api: return "api";
        case Actor::ui: return "ui";
        case Actor::system: return "system";
    }
    return "api";
}

Actor actor_from(std::string_view h) {
    if (h == "cli") return Actor::cli;
    if (h == "ui") return Actor::ui;
    return Actor::api;
}

bool valid_name(std::string_view n) {
    if (n.empty() || n.size() > 64) return false;
    for (char c : n)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    return true;
}

}  // namespace coffer::resource
