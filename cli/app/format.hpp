// Human-readable output: pretty JSON, aligned tables, JSON field access that tolerates gaps.
#pragma once

#include <boost/json/value.hpp>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::cli {

// Indented JSON (two spaces), keys in document order.
std::string pretty_json(const boost::json::value& v);

// One-line JSON.
std::string compact_json(const boost::json::value& v);

// A scalar as text: strings raw, null as "", booleans yes/no, numbers as written; objects and
// arrays as compact JSON.
std::string as_text(const boost::json::value& v);

// `v[key]` when v is an object holding key, else null.
const boost::json::value& field(const boost::json::value& v, std::string_view key);

// as_text(field(v, key)), or `fallback` when that is empty.
std::string text_field(const boost::json::value& v, std::string_view key,
                       std::string_view fallback = "");

// Columns padded to the widest cell; the last column is not padded. Each cell is shown on one
// line with its control characters visible (terminal_safe, Layout::line).
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);

}  // namespace coffer::cli
