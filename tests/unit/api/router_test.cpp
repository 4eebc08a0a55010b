#include <boost/test/unit_test.hpp>

#include "api/router.hpp"

using namespace coffer::api;

BOOST_AUTO_TEST_SUITE(router)

BOOST_AUTO_TEST_CASE(matches_params_and_methods) {
    Router r;
    int hit = 0;
    r.add("GET", "/api/v1/resources/{kind}/{name}", [&](auto&, auto&) -> coffer::core::Result<Reply> {
        hit = 1;
        return Reply{};
    });
    r.add("POST", "/api/v1/resources/{kind}/{name}/actions/{action}", [&](auto&, auto&) -> coffer::core::Result<Reply> {
        hit = 2;
        return Reply{};
    });
    Params p;
    bool known = false;
    auto* fn = r.match("GET", "/api/v1/resources/hello/h1", p, known);
    BOOST_REQUIRE(fn);
    BOOST_TEST(p.at("kind") == "hello");
    BOOST_TEST(p.at("name") == "h1");
    BOOST_TEST(!r.match("DELETE", "/api/v1/resources/hello/h1", p, known));
    BOOST_TEST(known);
    BOOST_TEST(!r.match("GET", "/api/v1/resources/hello", p, known));
    BOOST_TEST(!known);
    fn = r.match("POST", "/api/v1/resources/k/n/actions/greet", p, known);
    BOOST_REQUIRE(fn);
    BOOST_TEST(p.at("action") == "greet");
}

BOOST_AUTO_TEST_CASE(split) {
    auto s = split_path("//a/b//c/");
    BOOST_TEST(s.size() == 3u);
    BOOST_TEST(s[2] == "c");
    BOOST_TEST(split_path("/").empty());
}

BOOST_AUTO_TEST_SUITE_END()
