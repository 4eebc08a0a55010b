#include "schema/pointer.hpp"

#include <coffer/percent.hpp>

namespace coffer::schema::detail {

void append_token(std::string& pointer, std::string_view token) {
    pointer.reserve(pointer.size() + token.size() + 1);
    pointer.push_back('/');
    for (char c : token) {
        if (c == '~') {
            pointer += "~0";
        } else if (c == '/') {
            pointer += "~1";
        } else {
            pointer.push_back(c);
        }
    }
}

void append_index(std::string& pointer, std::size_t index) {
    pointer.push_back('/');
    pointer += std::to_string(index);
}

std::string child_pointer(std::string_view pointer, std::string_view token) {
    std::string out(pointer);
    append_token(out, token);
    return out;
}


std::optional<std::vector<std::string>> parse_local_ref(std::string_view ref, std::string& why) {
    if (ref.empty() || ref.front() != '#') {
        why = "only local references starting with \"#\" are supported";
        return std::nullopt;
    }
    auto decoded = coffer::percent_decode(ref.substr(1));
    if (!decoded) {
        why = "has an invalid percent-encoding";
        return std::nullopt;
    }
    std::vector<std::string> tokens;
    const std::string_view ptr = *decoded;
    if (ptr.empty()) return tokens;
    if (ptr.front() != '/') {
        why = "must be \"#\" or a JSON pointer such as \"#/$defs/name\" (anchors are not supported)";
        return std::nullopt;
    }
    std::size_t pos = 1;
    while (true) {
        const std::size_t end = ptr.find('/', pos);
        const std::string_view raw =
            ptr.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        std::string token;
        token.reserve(raw.size());
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '~') {
                token.push_back(raw[i]);
                continue;
            }
            if (i + 1 < raw.size() && raw[i + 1] == '0') {
                token.push_back('~');
            } else if (i + 1 < raw.size() && raw[i + 1] == '1') {
                token.push_back('/');
            } else {
                why = "has an invalid \"~\" escape (use ~0 for \"~\" and ~1 for \"/\")";
                return std::nullopt;
            }
            ++i;
        }
        tokens.push_back(std::move(token));
        if (end == std::string_view::npos) break;
        pos = end + 1;
    }
    return tokens;
}

}  // namespace coffer::schema::detail
