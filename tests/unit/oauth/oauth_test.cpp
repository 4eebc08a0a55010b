#define BOOST_TEST_MODULE oauth
#include <boost/test/unit_test.hpp>

#include "oauth/authorizer.hpp"
#include "oauth/challenge.hpp"
#include "oauth/discovery.hpp"
#include "oauth/form.hpp"

using namespace coffer::oauth;
namespace hc = coffer::http_client;

BOOST_AUTO_TEST_CASE(bearer_challenge_with_quoted_and_plain_params) {
    auto c = parse_challenges(
        R"(Bearer realm="mcp", error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp")");
    BOOST_REQUIRE_EQUAL(c.size(), 1u);
    BOOST_TEST(c[0].scheme == "bearer");
    BOOST_TEST(*c[0].param("scope") == "files:read files:write");
    BOOST_TEST(*c[0].param("error") == "insufficient_scope");
    BOOST_TEST(*c[0].param("resource_metadata") == "https://x.example/.well-known/oauth-protected-resource/mcp");
    BOOST_TEST(!c[0].param("missing"));
}

BOOST_AUTO_TEST_CASE(several_challenges_and_escapes) {
    auto c = parse_challenges(R"(Basic realm="a, b", DPoP algs="ES256", Bearer scope=read, error_description="say \"no\"")");
    BOOST_REQUIRE_EQUAL(c.size(), 3u);
    BOOST_TEST(c[0].scheme == "basic");
    BOOST_TEST(*c[0].param("realm") == "a, b");
    BOOST_TEST(c[1].scheme == "dpop");
    BOOST_TEST(c[2].scheme == "bearer");
    BOOST_TEST(*c[2].param("scope") == "read");
    BOOST_TEST(*c[2].param("error_description") == "say \"no\"");
    auto b = bearer_challenge({"Basic realm=\"x\"", "Bearer scope=\"a\""});
    BOOST_REQUIRE(b);
    BOOST_TEST(*b->param("scope") == "a");
    BOOST_TEST(!bearer_challenge({"Basic realm=\"x\""}));
    hc::Reply reply;
    reply.headers = {{"Content-Type", "application/json"}, {"WWW-AUTHENTICATE", "Bearer scope=\"b\""}};
    auto from_reply = bearer_challenge_of(reply);
    BOOST_REQUIRE(from_reply);
    BOOST_TEST(*from_reply->param("scope") == "b");
    reply.headers = {{"X-WWW-Authenticate", "Bearer scope=\"c\""}};
    BOOST_TEST(!bearer_challenge_of(reply));
}

BOOST_AUTO_TEST_CASE(unreadable_challenges_give_what_was_read) {
    BOOST_TEST(parse_challenges("").empty());
    BOOST_TEST(parse_challenges(",,, ").empty());
    auto c = parse_challenges(R"(Bearer scope="unterminated)");
    BOOST_TEST(c.empty());
    auto bare = parse_challenges("Bearer");
    BOOST_REQUIRE_EQUAL(bare.size(), 1u);
    BOOST_TEST(bare[0].params.empty());
}

BOOST_AUTO_TEST_CASE(form_round_trip) {
    auto body = form_encode({{"redirect_uri", "http://127.0.0.1:9/cb?x=1"}, {"scope", "a b"}, {"ü", "~._-"}});
    BOOST_TEST(body == "redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb%3Fx%3D1&scope=a%20b&%C3%BC=~._-");
    auto back = parse_form(body);
    BOOST_TEST(back["redirect_uri"] == "http://127.0.0.1:9/cb?x=1");
    BOOST_TEST(back["scope"] == "a b");
    BOOST_TEST(back["ü"] == "~._-");
    auto q = parse_form("code=abc&state=s+1&state=second&bad=%zz&flag");
    BOOST_TEST(q["code"] == "abc");
    BOOST_TEST(q["state"] == "s 1");  // the first of a repeated name
    BOOST_TEST(q["bad"] == "%zz");
    BOOST_TEST(q.count("flag") == 1u);
}

BOOST_AUTO_TEST_CASE(pkce_s256_matches_rfc_7636_appendix_b) {
    BOOST_TEST(pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    auto a = random_token(), b = random_token();
    BOOST_TEST(a != b);
    BOOST_TEST(a.size() == 43u);  // 32 bytes, base64url without padding
    BOOST_TEST(a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(discovery_urls_in_the_specifications_order) {
    auto server = hc::parse_url("https://api.example.com/v1/mcp/");
    auto prm = resource_metadata_urls(server, std::nullopt);
    BOOST_REQUIRE_EQUAL(prm.size(), 2u);
    BOOST_TEST(prm[0] == "https://api.example.com/.well-known/oauth-protected-resource/v1/mcp");
    BOOST_TEST(prm[1] == "https://api.example.com/.well-known/oauth-protected-resource");
    Challenge c{"bearer", {{"resource_metadata", "https://api.example.com/custom.json"}}};
    BOOST_TEST(resource_metadata_urls(server, c).front() == "https://api.example.com/custom.json");

    auto as = server_metadata_urls("https://auth.example.com/tenant1");
    BOOST_REQUIRE_EQUAL(as.size(), 3u);
    BOOST_TEST(as[0] == "https://auth.example.com/.well-known/oauth-authorization-server/tenant1");
    BOOST_TEST(as[1] == "https://auth.example.com/.well-known/openid-configuration/tenant1");
    BOOST_TEST(as[2] == "https://auth.example.com/tenant1/.well-known/openid-configuration");
    auto root = server_metadata_urls("https://auth.example.com");
    BOOST_REQUIRE_EQUAL(root.size(), 2u);
    BOOST_TEST(root[0] == "https://auth.example.com/.well-known/oauth-authorization-server");
    BOOST_TEST(root[1] == "https://auth.example.com/.well-known/openid-configuration");
}

BOOST_AUTO_TEST_CASE(urls_are_checked) {
    BOOST_CHECK_THROW(hc::parse_url("ftp://x/"), hc::Error);
    BOOST_CHECK_THROW(hc::parse_url("https://user:pw@x/"), hc::Error);
    BOOST_CHECK_THROW(hc::parse_url("not a url"), hc::Error);
    auto u = hc::parse_url("HTTP://Example.com:8080/a?b=c");
    BOOST_TEST(u.scheme == "http");
    BOOST_TEST(u.port == "8080");
    BOOST_TEST(u.target() == "/a?b=c");
    BOOST_TEST(hc::resolve(u, "/cb?code=1").text() == "http://Example.com:8080/cb?code=1");
    BOOST_TEST(hc::resolve(u, "https://other/x").host == "other");
}
