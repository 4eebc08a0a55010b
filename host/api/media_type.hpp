// The media type of a request body: REST bodies must be JSON (a body of another type is refused
// with 415 rather than parsed on a guess).
#pragma once

#include <string_view>

namespace coffer::api {

// "application/json", in any case, with or without parameters ("; charset=utf-8").
bool is_json_media_type(std::string_view content_type);

}  // namespace coffer::api
