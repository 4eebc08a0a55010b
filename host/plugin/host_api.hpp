// The host side of the ABI: the opaque coffer_host / coffer_reply objects and the function table
// the host hands to every plugin.
#pragma once

#include <coffer/abi.h>

#include <boost/json/value.hpp>

#include <filesystem>
#include <functional>
#include <string>

// Host-owned reply: the plugin writes into it only through reply_json / reply_error.
struct coffer_reply {
    bool has_json = false;
    std::string json;
    bool has_error = false;
    coffer_status status = COFFER_OK;
    std::string message;
    std::string details;
};

namespace coffer::plugin {

// What the host offers plugins, wired by the daemon. Callbacks must be thread-safe and must not
// block (they queue work onto the daemon's service thread).
struct HostServices {
    std::filesystem::path vault;
    std::function<void(const std::string& plugin, const std::string& type, const std::string& target,
                       const std::string& payload_json)>
        audit;
    std::function<void(const std::string& plugin, const std::string& topic, const std::string& event_json)> emit;
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
