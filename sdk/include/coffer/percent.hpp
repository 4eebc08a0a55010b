// Percent-encoding (RFC 3986 section 2.1), decided once: decoding a JSON pointer's URI fragment
// (the host's schema validator) and OAuth's form bodies and redirect queries (lib/oauth) use the
// same rules. Header-only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace coffer {

// %XX escapes decoded (and '+' as a space when `plus_is_space`, as in forms and queries);
// nullopt when an escape is cut short or not hexadecimal.
inline std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space = false) {
    auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] == '+' && plus_is_space) {
            out.push_back(' ');
        } else if (in[i] != '%') {
            out.push_back(in[i]);
        } else {
            if (i + 2 >= in.size()) return std::nullopt;
            const int hi = hex(in[i + 1]), lo = hex(in[i + 2]);
            if (hi < 0 || lo < 0) return std::nullopt;
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        }
    }
    return out;
}

// Every byte but the unreserved ones (A-Z a-z 0-9 - . _ ~) as %XX, upper-case hex.
inline std::string percent_encode(std::string_view text) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                    c == '_' || c == '~';
        if (keep) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 15];
        }
    }
    return out;
}

}  // namespace coffer
