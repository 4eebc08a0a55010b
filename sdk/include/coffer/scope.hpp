// A resource's scope: a list of {machine, agents} entries, "*" matching anything. The host
// decides which resources live on this machine and which gateway sessions see them; a plugin
// whose instances act for agents themselves (the skill kind delivers into each agent's folder)
// asks the same questions with the scope the host gave it (ResourceInfo::scope, ABI 1.7).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>

namespace coffer::scope {

// An entry for `machine` (or "*") exists.
inline bool in_machine(const boost::json::array& scope, const std::string& machine) {
    for (auto& e : scope) {
        auto* o = e.if_object();
        if (!o) continue;
        auto* m = o->if_contains("machine");
        if (m && m->is_string() && (m->as_string() == "*" || m->as_string() == machine)) return true;
    }
    return false;
}

// An entry for `machine` lists "*" or, when `agent` is not empty, that agent (G-30: a session
// without an identity matches only "*").
inline bool in_agent(const boost::json::array& scope, const std::string& machine, const std::string& agent) {
    for (auto& e : scope) {
        auto* o = e.if_object();
        if (!o) continue;
        auto* m = o->if_contains("machine");
        if (!m || !m->is_string() || (m->as_string() != "*" && m->as_string() != machine)) continue;
        auto* agents = o->if_contains("agents");
        if (!agents || !agents->is_array()) continue;
        for (auto& a : agents->as_array())
            if (a.is_string() && (a.as_string() == "*" || (!agent.empty() && a.as_string() == agent))) return true;
    }
    return false;
}

}  // namespace coffer::scope
