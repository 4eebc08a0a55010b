// Fernet (the standard token format, version 0x80) on OpenSSL:
//
//   token = base64url( 0x80 ‖ timestamp (u64, big-endian, seconds) ‖ IV (16) ‖ ciphertext ‖ HMAC (32) )
//   ciphertext = AES-128-CBC(encryption key, IV, PKCS#7-padded plaintext)
//   HMAC = HMAC-SHA256(signing key, everything before it)
//   key  = base64url( signing key (16) ‖ encryption key (16) )
//
// Tokens made here open with any other Fernet implementation and the other way round.
// Verification checks the HMAC (in constant time) before anything is decrypted.
#pragma once

#include "core/result.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::crypto {

// Why a token was refused: error.details.reason (the message says it for people).
namespace fernet_reason {
inline constexpr std::string_view malformed = "malformed";  // not URL-safe base64, or too short
inline constexpr std::string_view version = "version";      // first byte is not 0x80
inline constexpr std::string_view signature = "signature";  // HMAC mismatch: wrong key or altered token
inline constexpr std::string_view padding = "padding";      // ciphertext not whole blocks, bad PKCS#7
inline constexpr std::string_view expired = "expired";      // older than the TTL
inline constexpr std::string_view future = "future";        // timestamp too far ahead of the clock
inline constexpr std::string_view key = "key";              // the key text is not a Fernet key
}  // namespace fernet_reason

class FernetKey {
public:
    static constexpr std::size_t kBytes = 32;

    // 32 bytes from the system's CSPRNG.
    static FernetKey generate();
    // The URL-safe base64 text of 32 bytes (surrounding white space is not accepted: trim first).
    static core::Result<FernetKey> parse(std::string_view text);

    FernetKey(const FernetKey&) = default;
    FernetKey& operator=(const FernetKey&) = default;
    ~FernetKey();

    std::string encoded() const;  // 44 characters, '=' padded
    const unsigned char* signing_key() const noexcept { return bytes_.data(); }
    const unsigned char* encryption_key() const noexcept { return bytes_.data() + 16; }

private:
    FernetKey() = default;
    std::array<unsigned char, kBytes> bytes_{};
};

using Iv = std::array<unsigned char, 16>;

// A new token for `plaintext`, stamped with the current time and a random IV.
std::string fernet_encrypt(const FernetKey& key, std::string_view plaintext);
// Deterministic form for tests and interop vectors: the given time (Unix seconds) and IV.
std::string fernet_encrypt(const FernetKey& key, std::string_view plaintext, std::uint64_t timestamp, const Iv& iv);

struct FernetVerify {
    // Refuse tokens older than this many seconds. Unset: any age is fine, and the clock-skew
    // check is skipped as well (stored secrets must stay readable whatever the clock did).
    std::optional<std::uint64_t> ttl_s;
    // "Now" in Unix seconds; unset = the system clock.
    std::optional<std::uint64_t> now;
    // With a TTL, a timestamp more than this far in the future is refused.
    std::uint64_t max_clock_skew_s = 60;
};

// The plaintext, or an error whose details.reason is one of fernet_reason::*.
core::Result<std::string> fernet_decrypt(const FernetKey& key, std::string_view token, const FernetVerify& verify = {});

// The timestamp of a well-formed token (no HMAC check); nullopt when it is not one.
std::optional<std::uint64_t> fernet_timestamp(std::string_view token);

}  // namespace coffer::crypto
