// Media type matching for request bodies (see media_type.hpp).
#include "api/media_type.hpp"

namespace coffer::api {

bool is_json_media_type(std::string_view v) {
    constexpr std::string_view kJson = "application/json";
    auto semicolon = v.find(';');
    auto type = v.substr(0, semicolon);
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
    if (type.size() != kJson.size()) return false;
    for (std::size_t i = 0; i < type.size(); ++i) {
        char c = type[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != kJson[i]) return false;
    }
    return true;
}

}  // namespace coffer::api
