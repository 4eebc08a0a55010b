// The live instances whose kind is a channel adapter (ABI 1.6 `coffer_kind.channel`), published by
// the lifecycle when they start and retired before they stop. The channel core listens: it starts
// receiving on a published adapter and stops it on retirement. The host knows adapters only
// through this table, never by a platform's name.
#pragma once

#include "plugin/plugin.hpp"

#include <coffer/abi.h>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace coffer::resource {

struct ChannelAdapter {
    std::string uid, kind, name;
    plugin::Plugin* plugin = nullptr;
    coffer_instance* instance = nullptr;
    coffer_channel_adapter fns{};  // min(struct_size, sizeof) copy of the plugin's table
};

// publish/retire and the listener run on the service thread; find() on any.
class Channels {
public:
    struct Listener {
        std::function<void(const ChannelAdapter&)> published;
        std::function<void(const ChannelAdapter&)> retiring;  // before the kind's stop
    };
    // Publishes `kind`'s instance when the kind has a usable adapter table; false otherwise.
    bool publish(const plugin::Kind& kind, const std::string& uid, const std::string& name, coffer_instance* inst);
    void retire(const std::string& uid);
    // Installs the listener and tells it about every adapter already published.
    void set_listener(Listener l);

    std::optional<ChannelAdapter> find_uid(const std::string& uid) const;
    std::vector<ChannelAdapter> all() const;

private:
    mutable std::mutex mu_;
    std::map<std::string, ChannelAdapter> by_uid_;
    Listener listener_;
};

}  // namespace coffer::resource
