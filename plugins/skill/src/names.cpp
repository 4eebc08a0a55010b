#include "names.hpp"

#include <cstdint>

namespace coffer::plugins::skill {

std::optional<std::string> name_problem(std::string_view name) {
    if (name.empty()) return "must not be empty (1–64 characters of a-z, 0-9 and '-')";
    if (name.size() > kMaxNameLength)
        return "must be 1–64 characters long (it has " + std::to_string(utf8_length(name)) + ")";
    for (std::size_t i = 0; i < name.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(name[i]);
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        if (ok) continue;
        std::string shown = (c >= 0x20 && c < 0x7f) ? std::string(1, static_cast<char>(c)) : "non-ASCII";
        std::string hint = (c >= 'A' && c <= 'Z') ? " (use lowercase)" : "";
        return "may contain only lowercase letters a-z, digits 0-9 and hyphens; '" + shown + "' at position " +
               std::to_string(i + 1) + " is not allowed" + hint;
    }
    if (name.front() == '-' || name.back() == '-') return "must not start or end with a hyphen";
    if (name.find("--") != std::string_view::npos) return "must not contain two hyphens in a row ('--')";
    return std::nullopt;
}

std::size_t utf8_length(std::string_view text) {
    std::size_t n = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len;
        std::uint32_t cp;
        if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
        else return false;
        if (i + len > s.size()) return false;
        for (std::size_t k = 1; k < len; ++k) {
            auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (cc & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

}  // namespace coffer::plugins::skill
