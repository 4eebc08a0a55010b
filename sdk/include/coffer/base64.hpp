// Base64 (RFC 4648 section 4, '+' '/') and base64url (section 5, '-' '_'): the one encoder and
// decoder of the host (Fernet tokens and keys, the MCP `=?base64?…?=` header form), the stdio shim
// and the tests. Header-only, no dependency. See ADR 0027.
//
// Both variants behave alike:
//   encode — always with '=' padding to a multiple of four characters;
//   decode — strict: only the variant's 64 characters; '=' padding at the very end only, at most
//            two, and then the length is a multiple of four; padding may be left out, but the
//            length must still describe whole bytes (never 4k+1 characters); the unused low bits
//            of the last character must be zero (one text per byte string); no white space.
//            nullopt for anything else.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace coffer {

namespace base64_detail {

inline constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
inline constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::array<std::int8_t, 256> reverse(const char* alphabet) {
    std::array<std::int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
    return t;
}
inline constexpr auto kStandardTable = reverse(kStandard);
inline constexpr auto kUrlTable = reverse(kUrl);

inline std::string encode(std::string_view bytes, const char* alphabet) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])); };
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        std::uint32_t n = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
        out += {alphabet[n >> 18 & 63], alphabet[n >> 12 & 63], alphabet[n >> 6 & 63], alphabet[n & 63]};
    }
    std::size_t rest = bytes.size() - i;
    if (rest == 0) return out;
    std::uint32_t n = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out += {alphabet[n >> 18 & 63], alphabet[n >> 12 & 63], rest == 2 ? alphabet[n >> 6 & 63] : '=', '='};
    return out;
}

inline std::optional<std::string> decode(std::string_view text, const std::array<std::int8_t, 256>& table) {
    std::size_t pad = 0;
    while (pad < text.size() && pad < 3 && text[text.size() - 1 - pad] == '=') ++pad;
    if (pad > 2) return std::nullopt;
    if (pad > 0 && text.size() % 4 != 0) return std::nullopt;
    std::string_view body = text.substr(0, text.size() - pad);
    if (body.size() % 4 == 1) return std::nullopt;  // 6 bits cannot end a byte
    std::string out;
    out.reserve(body.size() / 4 * 3 + 2);
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : body) {
        auto v = table[static_cast<unsigned char>(c)];
        if (v < 0) return std::nullopt;  // outside the alphabet (also a stray '=' or white space)
        acc = (acc << 6 | static_cast<std::uint32_t>(v)) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>(acc >> bits & 0xff);
        }
    }
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // non-canonical tail
    return out;
}

}  // namespace base64_detail

inline std::string base64_encode(std::string_view bytes) {
    return base64_detail::encode(bytes, base64_detail::kStandard);
}
inline std::optional<std::string> base64_decode(std::string_view text) {
    return base64_detail::decode(text, base64_detail::kStandardTable);
}

inline std::string base64url_encode(std::string_view bytes) {
    return base64_detail::encode(bytes, base64_detail::kUrl);
}
inline std::optional<std::string> base64url_decode(std::string_view text) {
    return base64_detail::decode(text, base64_detail::kUrlTable);
}

}  // namespace coffer
