// SHA-256 as lower-case hex, on OpenSSL's EVP interface: the one implementation for the host
// (backup manifests), bundled plugins (the skill library's content hashes) and the tests.
// Header-only; whoever includes it links libcrypto (CMake: OpenSSL::Crypto). See ADR 0027.
//
//   coffer::Sha256 h;  h.update(chunk);  …  std::string hex = h.hex();
//   std::string hex = coffer::sha256_hex("abc");
//
// A digest is finished once: hex() ends it, and a Sha256 is not reused after it.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <string_view>

namespace coffer {

class Sha256 {
public:
    // Throws std::bad_alloc when OpenSSL cannot set up a digest (it only fails for memory).
    Sha256() : ctx_(EVP_MD_CTX_new()) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
    }

    void update(const void* data, std::size_t size) {
        if (size > 0) EVP_DigestUpdate(ctx_.get(), data, size);
    }
    void update(std::string_view text) { update(text.data(), text.size()); }

    // Finishes the digest: its 32 bytes.
    std::string digest() {
        unsigned char d[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        EVP_DigestFinal_ex(ctx_.get(), d, &len);
        return std::string(reinterpret_cast<const char*>(d), len);
    }
    // Finishes the digest: 64 lower-case hex digits.
    std::string hex() {
        static constexpr char digits[] = "0123456789abcdef";
        std::string out;
        for (unsigned char c : digest()) {
            out.push_back(digits[c >> 4]);
            out.push_back(digits[c & 0x0f]);
        }
        return out;
    }

private:
    struct Free {
        void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
    };
    std::unique_ptr<EVP_MD_CTX, Free> ctx_;
};

// The hex SHA-256 of a whole text.
inline std::string sha256_hex(std::string_view text) {
    Sha256 h;
    h.update(text);
    return h.hex();
}

}  // namespace coffer
