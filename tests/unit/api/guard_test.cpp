#define BOOST_TEST_MODULE api
#include <boost/test/unit_test.hpp>

#include "api/guard.hpp"

using namespace coffer::api;

BOOST_AUTO_TEST_SUITE(guard)

BOOST_AUTO_TEST_CASE(loopback_hosts) {
    for (auto h : {"127.0.0.1", "127.0.0.1:38470", "localhost", "LOCALHOST:1", "[::1]", "[::1]:38470"})
        BOOST_TEST(is_loopback_host(h), h);
    for (auto h : {"", "evil.com", "127.0.0.1.evil.com", "localhost.evil.com:80", "127.0.0.1:abc", "[::1]x",
                   "[::2]:1", "0.0.0.0", "10.0.0.1", "localhost:123456", "127.0.0.1:"})
        BOOST_TEST(!is_loopback_host(h), h);
}

BOOST_AUTO_TEST_CASE(loopback_origins) {
    for (auto o : {"http://localhost:3000", "https://127.0.0.1", "http://[::1]:9", "http://localhost/"})
        BOOST_TEST(is_loopback_origin(o), o);
    for (auto o : {"null", "http://evil.com", "file://", "http://localhost.evil.com", "ftp://localhost",
                   "http://localhost:3000/path"})
        BOOST_TEST(!is_loopback_origin(o), o);
}

BOOST_AUTO_TEST_CASE(check_origin_requires_host) {
    coffer::http::Request r;
    BOOST_TEST(check_origin(r).has_value());
    r.headers["host"] = "127.0.0.1:1";
    BOOST_TEST(!check_origin(r).has_value());
    r.headers["origin"] = "http://evil.com";
    BOOST_TEST(check_origin(r).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
