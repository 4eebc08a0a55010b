// channel_common: backoff, redaction, base URLs.
#define BOOST_TEST_MODULE unit_channel_adapters
#include <boost/test/unit_test.hpp>

#include "channel_common/backoff.hpp"
#include "channel_common/http_client.hpp"
#include "channel_common/redact.hpp"

using namespace coffer::channel_common;
using ms = std::chrono::milliseconds;

BOOST_AUTO_TEST_CASE(backoff_doubles_up_to_the_cap_and_honours_a_floor) {
    Backoff b(ms(1000), ms(30000));
    auto within = [](ms d, long base) { return d.count() >= base * 8 / 10 && d.count() <= base * 12 / 10; };
    BOOST_TEST(within(b.next(), 1000));
    BOOST_TEST(within(b.next(), 2000));
    BOOST_TEST(within(b.next(), 4000));
    for (int i = 0; i < 10; ++i) b.next();
    BOOST_TEST(within(b.next(), 30000));             // capped
    BOOST_TEST(b.next(ms(90000)).count() == 90000);  // a retry_after above the cap wins
    b.reset();
    BOOST_TEST(within(b.next(), 1000));
}

BOOST_AUTO_TEST_CASE(redact_replaces_every_occurrence) {
    BOOST_TEST(redact("POST /bot123:abc/getUpdates and 123:abc again", "123:abc", "<token>") ==
               "POST /bot<token>/getUpdates and <token> again");
    BOOST_TEST(redact("nothing here", "") == "nothing here");
    BOOST_TEST(redact("aaaa", "aa", "aaa") == "aaaaaa");  // a mask containing the secret does not loop
}

BOOST_AUTO_TEST_CASE(api_bases_are_https_or_loopback_http) {
    namespace json = boost::json;
    BOOST_TEST(api_base_problem(json::value("https://api.telegram.org")).empty());
    BOOST_TEST(api_base_problem(json::value("http://127.0.0.1:8081/x/")).empty());
    BOOST_TEST(!api_base_problem(json::value("http://api.telegram.org")).empty());
    BOOST_TEST(!api_base_problem(json::value("ftp://127.0.0.1")).empty());
    BOOST_TEST(!api_base_problem(json::value("https://h/?q=1")).empty());
    BOOST_TEST(!api_base_problem(json::value(42)).empty());
    std::string why;
    auto ep = parse_endpoint("http://127.0.0.1:8081/base/", why);
    BOOST_REQUIRE(ep);
    BOOST_TEST(ep->base_path == "/base");
    BOOST_TEST(ep->port == "8081");
    BOOST_TEST(!ep->tls);
}
