#include "signature.hpp"

#include <coffer/sha256.hpp>

#include <openssl/crypto.h>

#include <cctype>

namespace coffer::callback {

std::string signature_of(std::string_view raw_body, std::string_view secret) {
    Sha256 h;
    h.update(raw_body);
    h.update(secret);
    return h.hex();
}

bool signature_ok(std::string_view raw_body, std::string_view secret, std::string_view presented) {
    auto expected = signature_of(raw_body, secret);
    std::string given(presented);
    for (auto& c : given) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (given.size() != expected.size()) return false;  // the length is public (64)
    return CRYPTO_memcmp(given.data(), expected.data(), expected.size()) == 0;
}

}  // namespace coffer::callback
