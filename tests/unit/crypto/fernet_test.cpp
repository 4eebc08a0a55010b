// Fernet against the specification's acceptance vectors (tests/interop/fernet_spec_vectors.json),
// plus round trips, tampering and key handling.
#define BOOST_TEST_MODULE unit_crypto
#include <boost/test/unit_test.hpp>

#include "crypto/fernet.hpp"

#include <coffer/base64.hpp>

#include <boost/json.hpp>

#include <fstream>
#include <sstream>

using namespace coffer::crypto;
using coffer::base64url_decode;
using coffer::base64url_encode;
namespace json = boost::json;

namespace {

json::object vectors() {
    std::ifstream in(COFFER_FERNET_VECTORS);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str()).as_object();
}

FernetKey spec_key() { return FernetKey::parse(std::string(vectors().at("key").as_string())).value(); }

std::string reason(const coffer::core::Error& e) {
    auto* d = e.details.if_object();
    auto* r = d ? d->if_contains("reason") : nullptr;
    return r && r->is_string() ? std::string(r->as_string()) : std::string("<none>");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fernet)

BOOST_AUTO_TEST_CASE(generate_vectors_produce_the_spec_tokens) {
    auto v = vectors();
    auto key = spec_key();
    auto& cases = v.at("generate").as_array();
    BOOST_REQUIRE(!cases.empty());
    for (auto& c : cases) {
        Iv iv{};
        auto& a = c.at("iv").as_array();
        BOOST_REQUIRE(a.size() == 16u);
        for (std::size_t i = 0; i < 16; ++i) iv[i] = static_cast<unsigned char>(a[i].as_int64());
        auto token = fernet_encrypt(key, std::string(c.at("plaintext").as_string()),
                                    static_cast<std::uint64_t>(c.at("now").as_int64()), iv);
        BOOST_TEST(token == c.at("token").as_string(), c.at("name").as_string());
    }
}

BOOST_AUTO_TEST_CASE(verify_vectors_open) {
    auto v = vectors();
    auto key = spec_key();
    for (auto& c : v.at("verify").as_array()) {
        FernetVerify opts;
        opts.ttl_s = static_cast<std::uint64_t>(c.at("ttl").as_int64());
        opts.now = static_cast<std::uint64_t>(c.at("now").as_int64());
        auto plain = fernet_decrypt(key, std::string(c.at("token").as_string()), opts);
        BOOST_REQUIRE_MESSAGE(plain.ok(), (plain.ok() ? std::string() : plain.error().message));
        BOOST_TEST(*plain == c.at("plaintext").as_string());
    }
}

BOOST_AUTO_TEST_CASE(invalid_vectors_are_refused_with_their_reason) {
    auto v = vectors();
    auto key = spec_key();
    auto& cases = v.at("invalid").as_array();
    BOOST_TEST(cases.size() == 11u);
    for (auto& c : cases) {
        FernetVerify opts;
        opts.ttl_s = static_cast<std::uint64_t>(c.at("ttl").as_int64());
        opts.now = static_cast<std::uint64_t>(c.at("now").as_int64());
        auto r = fernet_decrypt(key, std::string(c.at("token").as_string()), opts);
        BOOST_TEST(!r.ok(), c.at("name").as_string());
        if (!r.ok()) {
            BOOST_TEST(reason(r.error()) == c.at("reason").as_string(), c.at("name").as_string() << ": " << r.error().message);
            BOOST_TEST(r.error().message.find("Fernet token refused") == 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(without_a_ttl_age_and_clock_skew_do_not_matter) {
    auto key = spec_key();
    auto token = fernet_encrypt(key, "old", 1000, Iv{});
    BOOST_TEST(fernet_decrypt(key, token).value() == "old");  // system clock, no TTL: 1970 is fine
    FernetVerify far_past;
    far_past.now = 10;  // the token is from the "future" but no TTL is asked for
    BOOST_TEST(fernet_decrypt(key, token, far_past).value() == "old");
    FernetVerify ttl;
    ttl.ttl_s = 60;
    ttl.now = 1060;
    BOOST_TEST(fernet_decrypt(key, token, ttl).ok());  // exactly the TTL old: still fine
    ttl.now = 1061;
    BOOST_TEST(reason(fernet_decrypt(key, token, ttl).error()) == "expired");
}

BOOST_AUTO_TEST_CASE(round_trips_every_length_and_any_bytes) {
    auto key = FernetKey::generate();
    for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 33u, 1000u, 65536u}) {
        std::string plain(n, '\0');
        for (std::size_t i = 0; i < n; ++i) plain[i] = static_cast<char>((i * 131 + 7) & 0xff);
        auto token = fernet_encrypt(key, plain);
        auto raw = base64url_decode(token).value();
        BOOST_TEST(raw.size() == 1 + 8 + 16 + (n / 16 + 1) * 16 + 32);
        BOOST_TEST(static_cast<unsigned char>(raw[0]) == 0x80);
        BOOST_TEST(fernet_decrypt(key, token).value() == plain);
    }
    BOOST_TEST(fernet_decrypt(key, fernet_encrypt(key, "h\xc3\xa9llo \xe2\x9c\x93")).value() == "h\xc3\xa9llo \xe2\x9c\x93");
}

BOOST_AUTO_TEST_CASE(fresh_tokens_differ_and_carry_the_current_time) {
    auto key = FernetKey::generate();
    auto a = fernet_encrypt(key, "same"), b = fernet_encrypt(key, "same");
    BOOST_TEST(a != b);  // random IVs
    auto ts = fernet_timestamp(a);
    BOOST_REQUIRE(ts.has_value());
    auto now = static_cast<std::uint64_t>(std::time(nullptr));
    BOOST_TEST(*ts <= now);
    BOOST_TEST(*ts + 5 >= now);
}

BOOST_AUTO_TEST_CASE(any_altered_byte_or_another_key_fails_the_signature) {
    auto key = FernetKey::generate();
    auto token = fernet_encrypt(key, "secret value");
    auto raw = base64url_decode(token).value();
    for (std::size_t i = 1; i < raw.size(); ++i) {  // byte 0 is the version: its own error
        auto bad = raw;
        bad[i] = static_cast<char>(bad[i] ^ 0x01);
        auto r = fernet_decrypt(key, base64url_encode(bad));
        BOOST_REQUIRE(!r.ok());
        BOOST_TEST(reason(r.error()) == "signature", "byte " << i);
    }
    auto ver = raw;
    ver[0] = static_cast<char>(0x81);
    BOOST_TEST(reason(fernet_decrypt(key, base64url_encode(ver)).error()) == "version");
    auto other = FernetKey::generate();
    auto r = fernet_decrypt(other, token);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(reason(r.error()) == "signature");
    BOOST_TEST(r.error().message.find("secret value") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(keys_parse_and_encode) {
    auto text = std::string(vectors().at("key").as_string());
    auto k = FernetKey::parse(text);
    BOOST_REQUIRE(k.ok());
    BOOST_TEST(k->encoded() == text);
    auto g = FernetKey::generate();
    BOOST_TEST(g.encoded().size() == 44u);
    BOOST_TEST(FernetKey::parse(g.encoded()).ok());
    // Unpadded text of the same 32 bytes is accepted (some tools strip the '=').
    BOOST_TEST(FernetKey::parse(text.substr(0, 43)).value().encoded() == text);
    for (const char* bad : {"", "short", "cw/0x689RpI+jtRR7oE8h/eQsKImvJapLeSbXpwF4e4=", "AAAA",
                            "cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=cw==", " cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4="}) {
        auto r = FernetKey::parse(bad);
        BOOST_TEST(!r.ok(), bad);
        if (!r.ok()) BOOST_TEST(reason(r.error()) == "key");
    }
}

BOOST_AUTO_TEST_SUITE_END()
