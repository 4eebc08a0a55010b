#define BOOST_TEST_MODULE unit_crypto
#include <boost/test/unit_test.hpp>

#include "crypto/base64url.hpp"

using namespace coffer::crypto;

BOOST_AUTO_TEST_SUITE(base64url)

BOOST_AUTO_TEST_CASE(rfc4648_test_vectors_round_trip) {
    // RFC 4648 section 10 (the alphabet-independent ones).
    const std::pair<const char*, const char*> cases[] = {
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
        {"foobar", "Zm9vYmFy"}};
    for (auto& [plain, enc] : cases) {
        BOOST_TEST(base64url_encode(plain) == enc);
        auto back = base64url_decode(enc);
        BOOST_REQUIRE(back.has_value());
        BOOST_TEST(*back == plain);
    }
}

BOOST_AUTO_TEST_CASE(uses_the_url_safe_alphabet) {
    std::string bytes{"\xfb\xff\xbf", 3};  // 111110 111111 111110 111111 → "+/+/" in standard base64
    BOOST_TEST(base64url_encode(bytes) == "-_-_");
    BOOST_TEST(base64url_decode("-_-_").value() == bytes);
    BOOST_TEST(!base64url_decode("+/+/").has_value());
}

BOOST_AUTO_TEST_CASE(padding_may_be_left_out_but_not_misplaced) {
    BOOST_TEST(base64url_decode("Zm9vYg").value() == "foob");
    BOOST_TEST(base64url_decode("Zm9vYmE").value() == "fooba");
    BOOST_TEST(!base64url_decode("Zm9vYg=").has_value());     // half the padding
    BOOST_TEST(!base64url_decode("Zm9vYg===").has_value());   // too much
    BOOST_TEST(!base64url_decode("Zm9v=Yg==").has_value());   // inside
    BOOST_TEST(!base64url_decode("Zm9vYg==x").has_value());   // after
    BOOST_TEST(!base64url_decode("Zm9vY").has_value());       // 6 dangling bits
    BOOST_TEST(!base64url_decode("Zm9vYh==").has_value());    // non-zero unused bits
    BOOST_TEST(!base64url_decode("Zm9v Yg==").has_value());   // white space
}

BOOST_AUTO_TEST_SUITE_END()
