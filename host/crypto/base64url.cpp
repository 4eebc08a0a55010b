#include "crypto/base64url.hpp"

#include <array>
#include <cstdint>

namespace coffer::crypto {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::array<std::int8_t, 256> make_table() {
    std::array<std::int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
    return t;
}
constexpr auto kTable = make_table();

}  // namespace

std::string base64url_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])); };
    for (; i + 3 <= bytes.size(); i += 3) {
        std::uint32_t n = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
        out += kAlphabet[n >> 18 & 63];
        out += kAlphabet[n >> 12 & 63];
        out += kAlphabet[n >> 6 & 63];
        out += kAlphabet[n & 63];
    }
    std::size_t rest = bytes.size() - i;
    if (rest == 1) {
        std::uint32_t n = at(i) << 16;
        out += kAlphabet[n >> 18 & 63];
        out += kAlphabet[n >> 12 & 63];
        out += "==";
    } else if (rest == 2) {
        std::uint32_t n = at(i) << 16 | at(i + 1) << 8;
        out += kAlphabet[n >> 18 & 63];
        out += kAlphabet[n >> 12 & 63];
        out += kAlphabet[n >> 6 & 63];
        out += '=';
    }
    return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
    // Split off the padding: at most two '=' and only at the very end.
    std::size_t pad = 0;
    while (pad < text.size() && pad < 3 && text[text.size() - 1 - pad] == '=') ++pad;
    if (pad > 2) return std::nullopt;
    std::string_view body = text.substr(0, text.size() - pad);
    if (pad > 0 && text.size() % 4 != 0) return std::nullopt;
    if (body.size() % 4 == 1) return std::nullopt;  // 6 bits cannot end a byte
    std::string out;
    out.reserve(body.size() / 4 * 3 + 2);
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : body) {
        auto v = kTable[static_cast<unsigned char>(c)];
        if (v < 0) return std::nullopt;  // outside the URL-safe alphabet (also a stray '=')
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // non-canonical tail
    return out;
}

}  // namespace coffer::crypto
