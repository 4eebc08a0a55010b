#include "channels/pairing.hpp"

#include "channels/commands.hpp"
#include "core/random.hpp"

#include <coffer/sha256.hpp>

#include <cctype>

namespace coffer::channels {

std::string new_code() {
    auto hex = core::random_hex(kCodeLength);
    std::string code;
    for (std::size_t i = 0; i < kCodeLength; ++i) {
        auto byte = static_cast<unsigned>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
        code += kCodeAlphabet[byte % kCodeAlphabet.size()];
    }
    return code;
}

std::string code_candidate(std::string_view text) {
    text = trim_space(text);
    if (text.size() != kCodeLength) return {};
    std::string out;
    for (char c : text) {
        if (!std::isalnum(static_cast<unsigned char>(c))) return {};
        out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

std::string code_hash(std::string_view channel_uid, std::string_view code) {
    Sha256 h;
    h.update(std::string_view("coffer-pairing\0", 15));
    h.update(channel_uid);
    h.update(std::string_view("\0", 1));
    h.update(code);
    return h.hex();
}

}  // namespace coffer::channels
