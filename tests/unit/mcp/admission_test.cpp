// Session admission (ADR 0024): token buckets refill at their rate up to their burst; an HTTP
// session needs a token from its connection's bucket and from the all-connections bucket (and
// takes neither when one is empty); the local socket has a bucket of its own; unlimited rates
// admit everything; full per-connection buckets are forgotten.
#include <boost/test/unit_test.hpp>

#include "mcp/admission.hpp"

using namespace coffer::mcp;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

BOOST_AUTO_TEST_CASE(a_bucket_gives_its_burst_then_refills_at_its_rate) {
    auto t = Clock::now();
    TokenBucket b(Rate{2, 3}, t);
    BOOST_TEST(b.take(t));
    BOOST_TEST(b.take(t));
    BOOST_TEST(b.take(t));
    BOOST_TEST(!b.take(t));
    BOOST_TEST(b.wait(t).count() == 500);  // one token at 2/s
    BOOST_TEST(!b.take(t + 499ms));
    BOOST_TEST(b.take(t + 500ms));
    BOOST_TEST(!b.full(t + 1s));
    BOOST_TEST(b.full(t + 10s));  // never more than the burst
    BOOST_TEST(b.take(t + 10s));
    BOOST_TEST(b.take(t + 10s));
    BOOST_TEST(b.take(t + 10s));
    BOOST_TEST(!b.take(t + 10s));
}

BOOST_AUTO_TEST_CASE(one_http_connection_cannot_take_the_whole_http_budget) {
    Admission a(Rate{10, 10}, Rate{1, 3}, Rate{10, 10});
    auto t = Clock::now();
    for (int i = 0; i < 3; ++i) BOOST_TEST(a.admit(Door::http, 7, t).count() == 0);
    auto wait = a.admit(Door::http, 7, t);  // connection 7 is out of tokens …
    BOOST_TEST(wait.count() == 1000);
    for (int i = 0; i < 7; ++i) BOOST_TEST(a.admit(Door::http, 100 + i, t).count() == 0);  // … others are not
    // The HTTP-wide bucket is empty now (3 + 7): nobody over HTTP, whatever the connection.
    BOOST_TEST(a.admit(Door::http, 200, t).count() > 0);
    // A refusal takes nothing: connection 200 still has its own burst once the shared one refills.
    BOOST_TEST(a.admit(Door::http, 200, t + 100ms).count() == 0);
}

BOOST_AUTO_TEST_CASE(the_local_socket_has_its_own_bucket) {
    Admission a(Rate{1, 2}, Rate{1, 2}, Rate{1, 2});
    auto t = Clock::now();
    BOOST_TEST(a.admit(Door::http, 1, t).count() == 0);
    BOOST_TEST(a.admit(Door::http, 2, t).count() == 0);
    BOOST_TEST(a.admit(Door::http, 3, t).count() > 0);  // HTTP is exhausted …
    BOOST_TEST(a.admit(Door::local, 0, t).count() == 0);  // … the local socket is not
    BOOST_TEST(a.admit(Door::local, 0, t).count() == 0);
    BOOST_TEST(a.admit(Door::local, 0, t).count() > 0);
}

BOOST_AUTO_TEST_CASE(unlimited_rates_admit_everything) {
    Admission a(Rate{}, Rate{}, Rate{});
    auto t = Clock::now();
    for (int i = 0; i < 10000; ++i) {
        BOOST_TEST_REQUIRE(a.admit(Door::http, 1, t).count() == 0);
        BOOST_TEST_REQUIRE(a.admit(Door::local, 0, t).count() == 0);
    }
    BOOST_TEST(a.connections_tracked() == 0u);
}

BOOST_AUTO_TEST_CASE(full_connection_buckets_are_forgotten) {
    Admission a(Rate{}, Rate{100, 5}, Rate{});
    auto t = Clock::now();
    for (std::uint64_t c = 1; c <= 300; ++c) BOOST_TEST_REQUIRE(a.admit(Door::http, c, t).count() == 0);
    BOOST_TEST(a.connections_tracked() == 300u);
    // A second later every one of them is full again, so the next new connection sweeps them.
    BOOST_TEST(a.admit(Door::http, 301, t + 1s).count() == 0);
    BOOST_TEST(a.connections_tracked() == 1u);
}
