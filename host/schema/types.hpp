// The JSON Schema "type" keyword as a bit set.
#pragma once

#include "schema/json_compare.hpp"

#include <boost/json/value.hpp>

#include <string_view>

namespace coffer::schema::detail {

enum type_bit : unsigned {
    type_null = 1U << 0,
    type_boolean = 1U << 1,
    type_object = 1U << 2,
    type_array = 1U << 3,
    type_number = 1U << 4,
    type_string = 1U << 5,
    type_integer = 1U << 6,
};

// 0 if `name` is not one of the seven JSON Schema type names.
inline unsigned type_bit_named(std::string_view name) noexcept {
    if (name == "null") return type_null;
    if (name == "boolean") return type_boolean;
    if (name == "object") return type_object;
    if (name == "array") return type_array;
    if (name == "number") return type_number;
    if (name == "string") return type_string;
    if (name == "integer") return type_integer;
    return 0;
}

// Does `v` have one of the types in `mask`? ("integer" accepts whole-number doubles.)
inline bool has_type(const boost::json::value& v, unsigned mask) noexcept {
    switch (v.kind()) {
    case boost::json::kind::null: return (mask & type_null) != 0;
    case boost::json::kind::bool_: return (mask & type_boolean) != 0;
    case boost::json::kind::object: return (mask & type_object) != 0;
    case boost::json::kind::array: return (mask & type_array) != 0;
    case boost::json::kind::string: return (mask & type_string) != 0;
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
        return (mask & type_number) != 0 || ((mask & type_integer) != 0 && is_whole_number(v));
    }
    return false;
}

}  // namespace coffer::schema::detail
