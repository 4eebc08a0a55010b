// application/x-www-form-urlencoded bodies and URL queries (RFC 6749 appendix B): the one encoder
// and parser of the OAuth client.
#pragma once

#include <coffer/percent.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::oauth {

using Fields = std::vector<std::pair<std::string, std::string>>;

// name=value&… with both sides percent-encoded, in the given order.
std::string form_encode(const Fields& fields);
// A query or form body decoded ('+' is a space); a repeated name keeps its first value. Malformed
// escapes are kept as written.
std::map<std::string, std::string> parse_form(std::string_view text);

}  // namespace coffer::oauth
