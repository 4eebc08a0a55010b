#include "resource/scope.hpp"

#include <boost/json.hpp>
#include <coffer/scope.hpp>

#include <unistd.h>

#include <cstdlib>

namespace coffer::resource {

namespace json = boost::json;

json::array default_scope() { return json::array{json::object{{"machine", "*"}, {"agents", json::array{"*"}}}}; }

std::optional<std::pair<std::string, std::string>> check_scope(const json::value& scope) {
    if (!scope.is_array()) return std::pair<std::string, std::string>{"/scope", "must be an array of {machine, agents}"};
    auto& a = scope.as_array();
    if (a.empty()) return std::pair<std::string, std::string>{"/scope", "must have at least one entry"};
    for (std::size_t i = 0; i < a.size(); ++i) {
        std::string at = "/scope/" + std::to_string(i);
        auto* o = a[i].if_object();
        if (!o) return std::pair<std::string, std::string>{at, "must be an object {machine, agents}"};
        for (auto& kv : *o)
            if (kv.key() != "machine" && kv.key() != "agents")
                return std::pair<std::string, std::string>{at + "/" + std::string(kv.key()), "is not allowed (unknown property)"};
        auto* m = o->if_contains("machine");
        if (!m || !m->is_string() || m->as_string().empty())
            return std::pair<std::string, std::string>{at + "/machine", "must be a non-empty string (\"*\" = any)"};
        auto* ag = o->if_contains("agents");
        if (!ag || !ag->is_array() || ag->as_array().empty())
            return std::pair<std::string, std::string>{at + "/agents", "must be a non-empty array of strings (\"*\" = any)"};
        for (std::size_t j = 0; j < ag->as_array().size(); ++j) {
            auto& e = ag->as_array()[j];
            if (!e.is_string() || e.as_string().empty())
                return std::pair<std::string, std::string>{at + "/agents/" + std::to_string(j), "must be a non-empty string"};
        }
    }
    return std::nullopt;
}

bool in_machine_scope(const json::array& scope, const std::string& machine) { return scope::in_machine(scope, machine); }

bool in_agent_scope(const json::array& scope, const std::string& machine, const std::string& agent) {
    return scope::in_agent(scope, machine, agent);
}

std::string this_machine() {
    if (const char* m = std::getenv("COFFER_MACHINE"); m && *m) return m;
    char buf[256] = {0};
    if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

}  // namespace coffer::resource
