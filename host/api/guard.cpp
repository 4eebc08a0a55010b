#include "api/guard.hpp"

#include <algorithm>
#include <cctype>

namespace coffer::api {

namespace {
std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}
bool digits(const std::string& s) {
    return !s.empty() && s.size() <= 5 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}
}  // namespace

bool is_loopback_host(const std::string& raw) {
    std::string h = lower(raw);
    std::string name = h, port;
    if (!h.empty() && h[0] == '[') {
        auto end = h.find(']');
        if (end == std::string::npos) return false;
        name = h.substr(0, end + 1);
        auto rest = h.substr(end + 1);
        if (!rest.empty()) {
            if (rest[0] != ':') return false;
            port = rest.substr(1);
            if (!digits(port)) return false;
        }
    } else if (auto colon = h.find(':'); colon != std::string::npos) {
        name = h.substr(0, colon);
        port = h.substr(colon + 1);
        if (!digits(port)) return false;
    }
    return name == "127.0.0.1" || name == "localhost" || name == "[::1]";
}

bool is_loopback_origin(const std::string& raw) {
    std::string o = lower(raw);
    std::string rest;
    if (o.rfind("http://", 0) == 0) rest = o.substr(7);
    else if (o.rfind("https://", 0) == 0) rest = o.substr(8);
    else return false;
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
    if (rest.find('/') != std::string::npos) return false;
    return is_loopback_host(rest);
}

std::optional<std::string> check_origin(const http::Request& r) {
    auto* host = r.header("host");
    if (!host || !is_loopback_host(*host))
        return "requests must address a loopback host (Host: 127.0.0.1 or localhost); refused Host '" +
               (host ? *host : std::string()) + "'";
    if (auto* origin = r.header("origin"); origin && !is_loopback_origin(*origin))
        return "cross-origin requests are refused; Origin '" + *origin + "' is not a loopback origin";
    return std::nullopt;
}

}  // namespace coffer::api
