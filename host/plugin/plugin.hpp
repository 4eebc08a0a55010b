// A loaded (or refused) plugin and the kinds it provides.
#pragma once

#include "plugin/host_api.hpp"
#include "plugin/manifest.hpp"
#include "schema/validator.hpp"

#include <coffer/abi.h>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace coffer::plugin {

struct Plugin;

struct Kind {
    std::string name;
    const coffer_kind* raw = nullptr;  // the plugin's descriptor (passed back to it)
    coffer_kind fns{};                 // min(struct_size, sizeof) copy; fields we don't know stay NULL
    boost::json::value schema;
    std::shared_ptr<const schema::Validator> validator;
    boost::json::array actions;        // [{name, description}] on one resource
    boost::json::array kind_actions;   // [{name, description}] on the kind (ABI 1.1)
    Plugin* plugin = nullptr;

    bool has_action(std::string_view a) const;
    bool has_kind_action(std::string_view a) const;
};

enum class Status { loaded, refused, faulted };
const char* to_string(Status s);

struct Plugin {
    std::string name;       // manifest name (or file name when the manifest is unreadable)
    std::string version;
    std::string file;       // library path
    std::string manifest;   // manifest path
    int abi_major = 0, abi_minor = 0;
    std::vector<std::string> kind_names;
    Status status = Status::refused;
    std::string error;      // why refused / last fault

    const coffer_plugin* raw = nullptr;
    coffer_plugin fns{};
    void* ctx = nullptr;
    std::unique_ptr<coffer_host> host;
    std::vector<std::unique_ptr<Kind>> kinds;
    std::recursive_mutex mu;  // serializes every call into this plugin
};

}  // namespace coffer::plugin
