// Building request targets for the REST API: "/api/v1/<segment>/…?k=v" with percent-encoding.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace coffer::client {

// Percent-encodes everything outside RFC 3986 "unreserved" (so '/' in a name cannot change the route).
std::string encode_component(std::string_view s);

// "/api/v1/" + the encoded segments joined by '/'.
std::string api_path(std::initializer_list<std::string_view> segments);

// Appends "?k=v&…" (encoded) to `path`; pairs with an empty value are skipped.
std::string with_query(std::string path,
                       std::initializer_list<std::pair<std::string_view, std::string_view>> query);

}  // namespace coffer::client
