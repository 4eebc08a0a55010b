// Form encoding and parsing (see form.hpp); the escapes are coffer/percent.hpp's.
#include "oauth/form.hpp"

#include <coffer/percent.hpp>

namespace coffer::oauth {

namespace {

// A malformed escape is kept as written.
std::string decode(std::string_view s) { return coffer::percent_decode(s, true).value_or(std::string(s)); }

}  // namespace

std::string form_encode(const Fields& fields) {
    std::string out;
    for (const auto& [k, v] : fields) {
        if (!out.empty()) out += '&';
        out += percent_encode(k) + "=" + percent_encode(v);
    }
    return out;
}

std::map<std::string, std::string> parse_form(std::string_view text) {
    std::map<std::string, std::string> out;
    while (!text.empty()) {
        auto amp = text.find('&');
        auto pair = text.substr(0, amp);
        text = amp == std::string_view::npos ? std::string_view{} : text.substr(amp + 1);
        if (pair.empty()) continue;
        auto eq = pair.find('=');
        auto key = decode(pair.substr(0, eq));
        auto value = eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1));
        out.emplace(std::move(key), std::move(value));
    }
    return out;
}

}  // namespace coffer::oauth
