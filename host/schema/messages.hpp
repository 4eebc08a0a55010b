// Wording of the problems reported to users (kept in one place so it stays consistent).
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::schema::detail {

// "must be an integer", "must be a string or null", "must be a string, a number or null".
std::string type_message(unsigned type_mask);

// A number as users write it: 5, -3, 0.01, 1e+300.
std::string format_number(const boost::json::value& number);

// A JSON value for a message: compact JSON, numbers as format_number, cut to ~`max_chars`
// characters (at a UTF-8 boundary) with "..." when longer.
std::string format_value(const boost::json::value& v, std::size_t max_chars = 60);

// "must be one of: \"a\", \"b\"" (at most a dozen values are listed).
std::string enum_message(const std::vector<const boost::json::value*>& values);

// "1 item", "3 items"; "1 property", "2 properties".
std::string count_of(std::uint64_t n, std::string_view singular, std::string_view plural);

// "1", "1 and 2", "1, 2 and 3".
std::string join_and(const std::vector<std::string>& parts);

}  // namespace coffer::schema::detail
