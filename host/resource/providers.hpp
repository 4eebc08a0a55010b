// The live instances whose kind contributes to the MCP gateway (ABI 1.2 `coffer_kind.mcp`),
// published by the lifecycle (service thread) and read by the gateway (network thread).
#pragma once

#include "plugin/plugin.hpp"

#include <coffer/abi.h>

#include <boost/json/array.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace coffer::resource {

struct Provider {
    std::string uid, kind, name;      // name = the resource name = the namespace prefix
    boost::json::array scope;         // the resource's scope (machine × agents)
    bool auto_enable_new = true;      // config "auto_enable_new": never-seen capabilities start enabled (G-22)
    plugin::Plugin* plugin = nullptr;
    coffer_instance* instance = nullptr;
    coffer_mcp_provider fns{};        // min(struct_size, sizeof) copy of the plugin's table
};

// Thread-safe. An instance is published once started and retired before it is stopped, updated or
// destroyed; `retire` runs the closer, which must not return before every gateway session on
// that instance is closed, so no provider call can reach an instance being torn down.
class Providers {
public:
    using Closer = std::function<void(const std::string& uid)>;
    using Listener = std::function<void()>;

    void set_closer(Closer c);
    void set_listener(Listener l);  // after every change (from the changing thread)

    // Publishes `kind`'s instance when the kind has a usable provider table; false otherwise.
    bool publish(const plugin::Kind& kind, const std::string& uid, const std::string& name,
                 const boost::json::array& scope, coffer_instance* inst, bool auto_enable_new = true);
    void retire(const std::string& uid);

    std::shared_ptr<const std::vector<Provider>> snapshot() const;  // sorted by name
    std::optional<Provider> find(const std::string& uid) const;

private:
    void changed();
    mutable std::mutex mu_;
    std::shared_ptr<const std::vector<Provider>> list_ = std::make_shared<std::vector<Provider>>();
    Closer closer_;
    Listener listener_;
};

}  // namespace coffer::resource
