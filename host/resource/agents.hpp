// The live instances whose kind is an agent driver (ABI 1.5 `coffer_kind.agent`), published by the
// lifecycle when they start and retired before they stop, for the conversation orchestrator. The
// host knows agents only through this table: never a driver's name.
#pragma once

#include "plugin/plugin.hpp"

#include <coffer/abi.h>

#include <boost/json/array.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace coffer::resource {

struct Agent {
    std::string uid, kind, name;
    plugin::Plugin* plugin = nullptr;
    coffer_instance* instance = nullptr;
    coffer_agent_driver fns{};  // min(struct_size, sizeof) copy of the plugin's table
};

// Thread-safe; changed on the service thread.
class Agents {
public:
    // Publishes `kind`'s instance when the kind has a usable driver table; false otherwise.
    bool publish(const plugin::Kind& kind, const std::string& uid, const std::string& name, coffer_instance* inst);
    void retire(const std::string& uid);

    std::optional<Agent> find(const std::string& name) const;  // by resource name
    std::optional<Agent> find_uid(const std::string& uid) const;
    boost::json::array describe() const;                       // [{name, kind, uid}]

private:
    mutable std::mutex mu_;
    std::map<std::string, Agent> by_uid_;
};

}  // namespace coffer::resource
