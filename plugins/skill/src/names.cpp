#include "names.hpp"

#include <cstdint>

namespace coffer::plugins::skill {

std::optional<std::string> name_problem(std::string_view name) {
    if (name.empty()) return "must not be empty (1–64 characters of a-z, 0-9 and '-')";
    if (name.size() > kMaxNameLength)
        return "must be 1–64 characters long (it has " + std::to_string(coffer::utf8::length(name)) + ")";
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


}  // namespace coffer::plugins::skill
