// The host side of the ABI: the opaque coffer_host / coffer_reply objects and the function table
// the host hands to every plugin.
#pragma once

#include <coffer/abi.h>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

// Host-owned reply: the plugin writes into it only through reply_json / reply_error.
struct coffer_reply {
    bool has_json = false;
    std::string json;
    bool has_error = false;
    coffer_status status = COFFER_OK;
    std::string message;
    std::string details;
};

// ABI 1.2 handles (coffer_call, coffer_session) stay opaque here too: they are numbers issued by
// plugin/handles.hpp, never addresses of host objects.

namespace coffer::plugin {

class Loop;

// What the host offers plugins, wired by the daemon. Callbacks must be thread-safe and must not
// block (they queue work onto the daemon's service thread).
struct HostServices {
    std::filesystem::path vault;
    std::function<void(const std::string& plugin, const std::string& type, const std::string& target,
                       const std::string& payload_json)>
        audit;
    std::function<void(const std::string& plugin, const std::string& topic, const std::string& event_json)> emit;
    // ABI 1.2: a plugin started / reaped a child process (upstream-pids/ bookkeeping, D-8).
    std::function<bool(const std::string& plugin, std::int64_t pid, const std::string& description)> child_started;
    std::function<void(const std::string& plugin, std::int64_t pid)> child_exited;
    // ABI 1.3: resolve a credential reference for a plugin. Returns COFFER_OK and sets `value`,
    // or an error status (COFFER_E_INVALID / COFFER_E_NOT_FOUND / COFFER_E_UNAVAILABLE).
    std::function<coffer_status(const std::string& plugin, std::string_view ref, std::string& value)>
        resolve_credential;
    // ABI 1.8: store (or, with an empty value, delete) a credential in the plugin's namespace;
    // the namespace rule is checked before this is called.
    std::function<coffer_status(const std::string& plugin, std::string ref, std::string value)> store_credential;
    // ABI 1.9: the network thread's loop, lent to plugins (plugin/loop.hpp). Null: not offered.
    std::shared_ptr<Loop> loop;
    // ABI 1.5 turn events carry no coffer_host: their receiver is set with set_turn_sink
    // (plugin/turns.hpp).
};

const coffer_host_api* host_api();

}  // namespace coffer::plugin

// One per loaded plugin.
struct coffer_host {
    std::string plugin_name;
    std::string data_dir;
    std::string vault_dir;
    coffer::plugin::HostServices* services = nullptr;
};
