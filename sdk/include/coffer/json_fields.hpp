// Typed reads of one member of a JSON object that may be missing or of another type: the
// accessors every parser of an outside stream (an agent CLI's events, an upstream's messages)
// needs, so that an unexpected shape reads as "absent" instead of throwing. Header only.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>

namespace coffer::json_fields {

// o[key] when it is an object (array), else nullptr.
inline const boost::json::object* object_at(const boost::json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_object() ? &v->as_object() : nullptr;
}
inline const boost::json::array* array_at(const boost::json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_array() ? &v->as_array() : nullptr;
}
// o[key] when it is a string, else "".
inline std::string string_at(const boost::json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
// o[key] when it is a number, else null.
inline boost::json::value number_at(const boost::json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_number() ? *v : boost::json::value(nullptr);
}
// o[key] whatever it is, null when missing.
inline boost::json::value value_at(const boost::json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v ? *v : boost::json::value(nullptr);
}

}  // namespace coffer::json_fields
