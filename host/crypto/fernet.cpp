#include "crypto/fernet.hpp"

#include <coffer/base64.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <boost/json/object.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>

namespace coffer::crypto {

namespace {

constexpr unsigned char kVersion = 0x80;
constexpr std::size_t kHeader = 1 + 8 + 16;  // version, timestamp, IV
constexpr std::size_t kMac = 32;
constexpr std::size_t kBlock = 16;

core::Error refused(std::string_view reason, std::string message) {
    return core::Error::make(core::code::bad_request, "Fernet token refused: " + std::move(message),
                             boost::json::object{{"reason", reason}});
}

std::uint64_t system_now() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::array<unsigned char, kMac> hmac(const FernetKey& key, const unsigned char* data, std::size_t len) {
    std::array<unsigned char, kMac> out{};
    unsigned int out_len = 0;
    if (!HMAC(EVP_sha256(), key.signing_key(), 16, data, len, out.data(), &out_len) || out_len != kMac)
        throw std::runtime_error("HMAC-SHA256 failed");
    return out;
}

struct CipherCtx {
    EVP_CIPHER_CTX* p = EVP_CIPHER_CTX_new();
    ~CipherCtx() { EVP_CIPHER_CTX_free(p); }
};

// Wipes a buffer that held plaintext before it is released.
struct Scrub {
    std::string& s;
    ~Scrub() {
        if (!s.empty()) OPENSSL_cleanse(s.data(), s.size());
    }
};

}  // namespace

FernetKey::~FernetKey() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }

FernetKey FernetKey::generate() {
    FernetKey k;
    if (RAND_bytes(k.bytes_.data(), static_cast<int>(k.bytes_.size())) != 1)
        throw std::runtime_error("the system random generator failed (RAND_bytes)");
    return k;
}

core::Result<FernetKey> FernetKey::parse(std::string_view text) {
    auto raw = base64url_decode(text);
    if (!raw || raw->size() != kBytes) {
        if (raw) OPENSSL_cleanse(raw->data(), raw->size());
        return core::Error::make(core::code::bad_request,
                                 "not a Fernet key: expected the URL-safe base64 text of 32 bytes (44 characters)",
                                 boost::json::object{{"reason", fernet_reason::key}});
    }
    FernetKey k;
    for (std::size_t i = 0; i < kBytes; ++i) k.bytes_[i] = static_cast<unsigned char>((*raw)[i]);
    OPENSSL_cleanse(raw->data(), raw->size());
    return k;
}

std::string FernetKey::encoded() const {
    return base64url_encode(std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size()));
}

std::string fernet_encrypt(const FernetKey& key, std::string_view plaintext) {
    Iv iv{};
    if (RAND_bytes(iv.data(), static_cast<int>(iv.size())) != 1)
        throw std::runtime_error("the system random generator failed (RAND_bytes)");
    return fernet_encrypt(key, plaintext, system_now(), iv);
}

std::string fernet_encrypt(const FernetKey& key, std::string_view plaintext, std::uint64_t timestamp, const Iv& iv) {
    std::string raw;
    raw.resize(kHeader + plaintext.size() + kBlock + kMac);
    auto* p = reinterpret_cast<unsigned char*>(raw.data());
    p[0] = kVersion;
    for (int i = 0; i < 8; ++i) p[1 + i] = static_cast<unsigned char>(timestamp >> (56 - 8 * i));
    std::copy(iv.begin(), iv.end(), p + 9);

    CipherCtx ctx;
    int n1 = 0, n2 = 0;
    if (!ctx.p || EVP_EncryptInit_ex(ctx.p, EVP_aes_128_cbc(), nullptr, key.encryption_key(), iv.data()) != 1 ||
        EVP_EncryptUpdate(ctx.p, p + kHeader, &n1, reinterpret_cast<const unsigned char*>(plaintext.data()),
                          static_cast<int>(plaintext.size())) != 1 ||
        EVP_EncryptFinal_ex(ctx.p, p + kHeader + n1, &n2) != 1)
        throw std::runtime_error("AES-128-CBC encryption failed");
    std::size_t signed_len = kHeader + static_cast<std::size_t>(n1 + n2);
    auto mac = hmac(key, p, signed_len);
    std::copy(mac.begin(), mac.end(), p + signed_len);
    raw.resize(signed_len + kMac);
    return base64url_encode(raw);
}

std::optional<std::uint64_t> fernet_timestamp(std::string_view token) {
    auto raw = base64url_decode(token);
    if (!raw || raw->size() < kHeader + kBlock + kMac || static_cast<unsigned char>((*raw)[0]) != kVersion)
        return std::nullopt;
    std::uint64_t ts = 0;
    for (int i = 0; i < 8; ++i) ts = ts << 8 | static_cast<unsigned char>((*raw)[1 + i]);
    return ts;
}

core::Result<std::string> fernet_decrypt(const FernetKey& key, std::string_view token, const FernetVerify& verify) {
    auto decoded = base64url_decode(token);
    if (!decoded) return refused(fernet_reason::malformed, "not URL-safe base64");
    const auto& raw = *decoded;
    if (raw.size() < kHeader + kMac) return refused(fernet_reason::malformed, "too short to be a Fernet token");
    const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
    if (p[0] != kVersion) return refused(fernet_reason::version, "unknown version byte (only 0x80 is defined)");

    std::uint64_t ts = 0;
    for (int i = 0; i < 8; ++i) ts = ts << 8 | p[1 + i];
    if (verify.ttl_s) {
        std::uint64_t now = verify.now.value_or(system_now());
        if (ts > now + verify.max_clock_skew_s)
            return refused(fernet_reason::future, "its timestamp lies in the future (clock skew beyond " +
                                                      std::to_string(verify.max_clock_skew_s) + " s)");
        if (now > ts && now - ts > *verify.ttl_s)
            return refused(fernet_reason::expired,
                           "expired (older than its time-to-live of " + std::to_string(*verify.ttl_s) + " s)");
    }

    std::size_t signed_len = raw.size() - kMac;
    auto expect = hmac(key, p, signed_len);
    if (CRYPTO_memcmp(expect.data(), p + signed_len, kMac) != 0)
        return refused(fernet_reason::signature, "the HMAC does not match (wrong key, or the token was altered)");

    std::size_t ct_len = signed_len - kHeader;
    if (ct_len == 0 || ct_len % kBlock != 0)
        return refused(fernet_reason::padding, "the ciphertext is not a whole number of AES blocks");
    std::string out;
    out.resize(ct_len);
    Scrub scrub_on_error{out};
    CipherCtx ctx;
    int n1 = 0, n2 = 0;
    if (!ctx.p || EVP_DecryptInit_ex(ctx.p, EVP_aes_128_cbc(), nullptr, key.encryption_key(), p + 9) != 1)
        throw std::runtime_error("AES-128-CBC initialisation failed");
    if (EVP_DecryptUpdate(ctx.p, reinterpret_cast<unsigned char*>(out.data()), &n1, p + kHeader,
                          static_cast<int>(ct_len)) != 1 ||
        EVP_DecryptFinal_ex(ctx.p, reinterpret_cast<unsigned char*>(out.data()) + n1, &n2) != 1)
        return refused(fernet_reason::padding, "the decrypted data has invalid PKCS#7 padding");
    std::string plaintext(out.data(), static_cast<std::size_t>(n1 + n2));
    return plaintext;
}

}  // namespace coffer::crypto
