// Lower-case hex SHA-256 of a text (OpenSSL; link OpenSSL::Crypto): how the tests hand a secret's
// digest to the test upstream without the secret itself appearing on a command line.
#pragma once

#include <openssl/evp.h>

#include <string>
#include <string_view>

namespace coffer::test {

inline std::string sha256_hex(std::string_view text) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(text.data(), text.size(), md, &n, EVP_sha256(), nullptr);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

}  // namespace coffer::test
