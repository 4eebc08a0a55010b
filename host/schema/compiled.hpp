// The compiled form of a schema: a graph of nodes (one per schema object, $ref as an edge).
#pragma once

#include "schema/pattern.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace coffer::schema::detail {

using NodeId = std::size_t;

struct PatternChild {
    Pattern pattern;
    NodeId node;
};

// One schema object (or boolean schema). Pointers to JSON values point into Compiled::document.
struct Node {
    std::string where;        // the schema's own pointer in the schema document
    bool reject_all = false;  // the boolean schema `false`

    unsigned types = 0;  // type_bit set; 0 = no "type" keyword
    const boost::json::value* const_value = nullptr;
    std::optional<std::vector<const boost::json::value*>> enum_values;

    // numbers
    const boost::json::value* minimum = nullptr;
    const boost::json::value* maximum = nullptr;
    const boost::json::value* exclusive_minimum = nullptr;
    const boost::json::value* exclusive_maximum = nullptr;
    const boost::json::value* multiple_of = nullptr;

    // strings
    std::optional<std::uint64_t> min_length, max_length;
    std::optional<Pattern> pattern;

    // arrays
    std::vector<NodeId> prefix_items;
    std::optional<NodeId> items;
    std::optional<std::uint64_t> min_items, max_items;
    bool unique_items = false;

    // objects
    std::map<std::string, NodeId, std::less<>> properties;
    std::vector<PatternChild> pattern_properties;
    std::optional<NodeId> additional_properties;
    std::optional<NodeId> property_names;
    std::vector<std::string> required;
    std::optional<std::uint64_t> min_properties, max_properties;

    // applicators on the same instance
    std::optional<NodeId> ref;
    std::vector<NodeId> all_of, any_of, one_of;
    std::optional<NodeId> not_, if_, then_, else_;
};

struct Compiled {
    boost::json::value document;  // the caller's schema, copied; never modified after compiling
    std::vector<Node> nodes;
    NodeId root = 0;
};

// Limits that keep validation of hostile instances bounded in stack and time. Evaluating a
// subschema against a value is one step; a validation may take a base allowance plus a few steps
// per instance value (ordinary schemas need one to a handful), which stops exponential blow-ups
// (nested alternatives, $ref fan-out) within about a second.
inline constexpr std::size_t max_evaluation_depth = 1024;  // nested subschema evaluations
inline constexpr std::size_t base_evaluation_steps = 1'000'000;
inline constexpr std::size_t evaluation_steps_per_value = 16;

}  // namespace coffer::schema::detail
