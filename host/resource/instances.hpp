// Live plugin instances, one per in-scope resource whose kind is loaded.
#pragma once

#include "core/result.hpp"
#include "plugin/plugin.hpp"
#include "resource/model.hpp"
#include "resource/agents.hpp"
#include "resource/channels.hpp"
#include "resource/providers.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <string>

namespace coffer::resource {

class Instances {
public:
    ~Instances();

    // Creates the plugin instance (and starts it when the resource is enabled). A start failure
    // is kept as last_error, not returned: the resource exists, its status says why it is down.
    core::Result<void> create(plugin::Kind& kind, const Resource& r);
    core::Result<void> update(const Resource& r);  // plugin update, or recreate when it has none
    core::Result<void> set_enabled(const Resource& r, bool enabled);
    core::Result<boost::json::value> action(const Resource& r, std::string_view action, const boost::json::object& args);
    boost::json::object status(const Resource& r);
    void destroy(const std::string& uid, bool removed);  // stop (+remove) + destroy
    void destroy_all();
    bool has(const std::string& uid) const { return live_.count(uid) != 0; }
    // Scope or description changed without a config change: republish for the gateway.
    void refresh(const Resource& r);

    // The started instances that contribute to the MCP gateway (thread-safe).
    Providers& providers() { return providers_; }
    // The started instances that are agents (ABI 1.5), for the conversation orchestrator.
    Agents& agents() { return agents_; }
    // The started instances that are channel adapters (ABI 1.6), for the channel core.
    Channels& channels() { return channels_; }

private:
    struct Live {
        plugin::Kind* kind = nullptr;
        coffer_instance* inst = nullptr;
        bool started = false;
        std::string last_error;
        std::string uid, name;
        boost::json::array scope;
        bool auto_enable_new = true;  // the gateway's curation policy (G-22), from config
    };
    void publish(const Live& l);
    void rescope(Live& l, const Resource& r);
    void start(Live& l, const std::string& ref);
    void stop(Live& l, const std::string& ref);
    std::map<std::string, Live> live_;
    Providers providers_;
    Agents agents_;
    Channels channels_;
};

}  // namespace coffer::resource
