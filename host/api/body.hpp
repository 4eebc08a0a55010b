// A REST request's JSON body, parsed strictly (core/strict_json.hpp): invalid UTF-8, a syntax
// error, too deep a nesting or a key given twice in one object is a 400 that says which and where.
#pragma once

#include "core/result.hpp"
#include "http/message.hpp"

#include <boost/json/value.hpp>

#include <cstddef>

namespace coffer::api {

// The body as JSON. An empty body is `{}` when `allow_empty`, else a 400 asking for an object.
core::Result<boost::json::value> parse_body(const http::Request& r, bool allow_empty, std::size_t max_depth = 64);

}  // namespace coffer::api
