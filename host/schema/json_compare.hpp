// JSON value semantics as JSON Schema sees them: numbers compare by mathematical value
// (1 == 1.0, int64 vs uint64 vs double compared exactly), objects ignore member order.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>

namespace coffer::schema::detail {

bool is_number(const boost::json::value& v) noexcept;

// An integer in the JSON Schema sense: int64/uint64, or a finite double with no fractional part.
bool is_whole_number(const boost::json::value& v) noexcept;

// Exact three-way comparison of two numbers (both must satisfy is_number): <0, 0, >0.
int compare_numbers(const boost::json::value& a, const boost::json::value& b) noexcept;

// Is `x` an integer multiple of `divisor` (> 0)? Exact for integers, tolerant of binary rounding
// for doubles (0.3 is a multiple of 0.1).
bool is_multiple_of(const boost::json::value& x, const boost::json::value& divisor) noexcept;

// Deep equality with JSON Schema semantics. Recursion depth is the values' nesting depth, which
// callers bound beforehand (see nesting.hpp).
bool json_equal(const boost::json::value& a, const boost::json::value& b) noexcept;

// A hash consistent with json_equal (equal values hash equally).
std::size_t json_hash(const boost::json::value& v) noexcept;

}  // namespace coffer::schema::detail
