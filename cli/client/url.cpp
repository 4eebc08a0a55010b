#include "client/url.hpp"

namespace coffer::client {

std::string encode_component(std::string_view s) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
        if (unreserved) {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 0xF]);
        }
    }
    return out;
}

std::string api_path(std::initializer_list<std::string_view> segments) {
    std::string out = "/api/v1";
    for (auto seg : segments) {
        out.push_back('/');
        out += encode_component(seg);
    }
    return out;
}

std::string with_query(std::string path,
                       std::initializer_list<std::pair<std::string_view, std::string_view>> query) {
    char sep = '?';
    for (const auto& [k, v] : query) {
        if (v.empty()) continue;
        path.push_back(sep);
        path += encode_component(k);
        path.push_back('=');
        path += encode_component(v);
        sep = '&';
    }
    return path;
}

}  // namespace coffer::client
