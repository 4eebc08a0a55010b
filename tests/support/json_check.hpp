// Test support: assertions on JSON documents by value, not by substring. A test that checks a
// serialized body for `"code":"X"` passes on a body that merely mentions it somewhere; these
// parse the body and look at the value where it must be.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace coffer::test {

// `text` parsed as JSON, or null when it is not JSON (so every .at() on it fails loudly).
boost::json::value parse(std::string_view text);

// The string at JSON pointer `pointer` (RFC 6901, e.g. "/error/code") in `doc`, or a marker
// "<no string at /error/code>" that no expected value equals, so a missing value fails the check
// and says why.
std::string string_at(const boost::json::value& doc, std::string_view pointer);
std::string string_at(std::string_view text, std::string_view pointer);

// True when `array` (the array at `pointer` in `doc`) has an element whose member `key` is the
// string `value` — "the list names X" without caring about order.
bool has_member(const boost::json::value& doc, std::string_view pointer, std::string_view key, std::string_view value);

}  // namespace coffer::test
