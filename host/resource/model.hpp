// The resource model: (kind, name) with config, enabled flag, description, scope, timestamps, uid.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>

namespace coffer::resource {

struct Resource {
    std::string uid;
    std::string kind;
    std::string name;
    std::string description;
    boost::json::object config;
    bool enabled = true;
    boost::json::array scope;
    std::string created_at;
    std::string updated_at;

    std::string ref() const { return kind + ":" + name; }
    boost::json::object to_json() const;
};

// Who performs a change.
enum class Actor { cli, api, ui, system };
const char* to_string(Actor a);
Actor actor_from(std::string_view header);  // unknown → api

bool valid_name(std::string_view name);  // 1–64 of [A-Za-z0-9_-]

}  // namespace coffer::resource
