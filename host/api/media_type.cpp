// Media type matching for request bodies (see media_type.hpp).
#include "api/media_type.hpp"

#include "core/ascii.hpp"

namespace coffer::api {

bool is_json_media_type(std::string_view v) {
    constexpr std::string_view kJson = "application/json";
    auto semicolon = v.find(';');
    auto type = v.substr(0, semicolon);
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
    return core::ascii_iequals(type, kJson);
}

}  // namespace coffer::api
