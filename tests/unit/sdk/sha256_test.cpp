// coffer/sha256.hpp, the one SHA-256 (OpenSSL EVP) of host, plugins and tests, against the
// FIPS 180-2 examples (appendix B.1, B.2, B.3) and the digest of the empty message.
#define BOOST_TEST_MODULE sdk_sha256
#include <boost/test/unit_test.hpp>

#include <coffer/sha256.hpp>

#include <string>

using coffer::Sha256;
using coffer::sha256_hex;

BOOST_AUTO_TEST_CASE(fips_180_vectors) {
    BOOST_TEST(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    BOOST_TEST(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    BOOST_TEST(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
               "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    BOOST_TEST(sha256_hex(std::string(1000000, 'a')) ==
               "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

BOOST_AUTO_TEST_CASE(streaming_equals_one_shot) {
    // One million 'a' fed in uneven pieces, and an update of nothing, give the same digest.
    Sha256 h;
    std::string chunk(997, 'a');
    std::size_t left = 1000000;
    h.update(nullptr, 0);
    while (left > 0) {
        std::size_t n = left < chunk.size() ? left : chunk.size();
        h.update(chunk.data(), n);
        left -= n;
    }
    BOOST_TEST(h.hex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

BOOST_AUTO_TEST_CASE(binary_input_is_hashed_byte_for_byte) {
    // Embedded NULs count: "a\0b" differs from "a" and from "ab".
    std::string with_nul("a\0b", 3);
    BOOST_TEST(sha256_hex(with_nul) != sha256_hex("ab"));
    BOOST_TEST(sha256_hex(with_nul).size() == 64u);
}
