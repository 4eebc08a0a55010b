#include "resource/agents.hpp"

#include "core/log.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstring>

namespace coffer::resource {

bool Agents::publish(const plugin::Kind& kind, const std::string& uid, const std::string& name, coffer_instance* inst) {
    const coffer_agent_driver* raw = kind.fns.agent;
    if (!raw || !inst || !kind.plugin) return false;
    Agent a;
    std::memcpy(&a.fns, raw, std::min<std::size_t>(raw->struct_size, sizeof(coffer_agent_driver)));
    if (!a.fns.start_turn || !a.fns.interrupt) {
        core::log::warn("agent driver table lacks start_turn/interrupt; the resource cannot chat",
                        {{"kind", kind.name}, {"resource", name}});
        return false;
    }
    a.uid = uid;
    a.kind = kind.name;
    a.name = name;
    a.plugin = kind.plugin;
    a.instance = inst;
    std::lock_guard<std::mutex> g(mu_);
    by_uid_[uid] = std::move(a);
    return true;
}

void Agents::retire(const std::string& uid) {
    std::lock_guard<std::mutex> g(mu_);
    by_uid_.erase(uid);
}

std::optional<Agent> Agents::find(const std::string& name) const {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [uid, a] : by_uid_)
        if (a.name == name) return a;
    return std::nullopt;
}

std::optional<Agent> Agents::find_uid(const std::string& uid) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = by_uid_.find(uid);
    if (it == by_uid_.end()) return std::nullopt;
    return it->second;
}

boost::json::array Agents::describe() const {
    boost::json::array out;
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [uid, a] : by_uid_) out.push_back(boost::json::object{{"name", a.name}, {"kind", a.kind}, {"uid", uid}});
    return out;
}

}  // namespace coffer::resource
