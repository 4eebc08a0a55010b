// coffer/base64.hpp, the one base64 and base64url of host, shim and tests: the RFC 4648 vectors
// in both alphabets, and the strict decoding both share (ADR 0027).
#define BOOST_TEST_MODULE sdk_base64
#include <boost/test/unit_test.hpp>

#include <coffer/base64.hpp>

#include <string>
#include <utility>

using namespace coffer;

BOOST_AUTO_TEST_CASE(rfc4648_vectors_round_trip_in_both_alphabets) {
    // RFC 4648 section 10 (characters common to both alphabets).
    const std::pair<const char*, const char*> cases[] = {
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
        {"foobar", "Zm9vYmFy"}};
    for (auto& [plain, enc] : cases) {
        BOOST_TEST(base64_encode(plain) == enc);
        BOOST_TEST(base64url_encode(plain) == enc);
        BOOST_TEST(base64_decode(enc).value() == plain);
        BOOST_TEST(base64url_decode(enc).value() == plain);
    }
}

BOOST_AUTO_TEST_CASE(each_variant_has_its_own_two_characters) {
    std::string bytes{"\xfb\xff\xbf", 3};  // 111110 111111 111110 111111
    BOOST_TEST(base64_encode(bytes) == "+/+/");
    BOOST_TEST(base64url_encode(bytes) == "-_-_");
    BOOST_TEST(base64_decode("+/+/").value() == bytes);
    BOOST_TEST(base64url_decode("-_-_").value() == bytes);
    BOOST_TEST(!base64url_decode("+/+/").has_value());
    BOOST_TEST(!base64_decode("-_-_").has_value());
}

BOOST_AUTO_TEST_CASE(every_byte_value_round_trips) {
    std::string all;
    for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
    for (std::size_t n = 0; n <= all.size(); n += 37) {
        auto part = all.substr(0, n);
        BOOST_TEST(base64_decode(base64_encode(part)).value() == part);
        BOOST_TEST(base64url_decode(base64url_encode(part)).value() == part);
    }
}

BOOST_AUTO_TEST_CASE(padding_may_be_left_out_but_not_misplaced) {
    for (auto decode : {&base64_decode, &base64url_decode}) {
        BOOST_TEST(decode("Zm9vYg").value() == "foob");
        BOOST_TEST(decode("Zm9vYmE").value() == "fooba");
        BOOST_TEST(!decode("Zm9vYg=").has_value());    // half the padding
        BOOST_TEST(!decode("Zm9vYg===").has_value());  // too much
        BOOST_TEST(!decode("Zm9v=Yg==").has_value());  // inside
        BOOST_TEST(!decode("Zm9vYg==x").has_value());  // after
        BOOST_TEST(!decode("=").has_value());          // padding alone
    }
}

BOOST_AUTO_TEST_CASE(bad_input_is_rejected) {
    for (auto decode : {&base64_decode, &base64url_decode}) {
        BOOST_TEST(!decode("Zm9vY").has_value());      // 4k+1 characters: 6 dangling bits
        BOOST_TEST(!decode("Zm9vYh==").has_value());   // non-zero unused bits
        BOOST_TEST(!decode("Zm9vYmF=").has_value());   // likewise, one '='
        BOOST_TEST(!decode("Zm9v Yg==").has_value());  // white space
        BOOST_TEST(!decode("Zm9v\nYg==").has_value()); // a line break
        BOOST_TEST(!decode("!!").has_value());         // outside the alphabet
        BOOST_TEST(!decode(std::string("Zm\0v", 4)).has_value());
    }
}
