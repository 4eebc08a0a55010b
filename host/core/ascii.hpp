// ASCII-only text helpers for protocol tokens (media types, reserved names): locale-free, so
// "COFFER" and "coffer" compare equal everywhere and nothing depends on the process's locale.
#pragma once

#include <string_view>

namespace coffer::core {

inline char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Equal ignoring ASCII case.
inline bool ascii_iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}

}  // namespace coffer::core
