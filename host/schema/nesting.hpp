// Bounded nesting checks, so that nothing downstream recurses deeper than max_nesting_depth.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace coffer::schema::detail {

struct Shape {
    std::size_t values = 0;                 // values visited (all of them unless too deep)
    std::optional<std::string> too_deep_at;  // pointer of the first value nested deeper than limit
};

// Walks `v` in document order, recursing at most limit + 1 levels.
Shape measure(const boost::json::value& v, std::size_t limit);

}  // namespace coffer::schema::detail
