#include <boost/test/unit_test.hpp>

#include "mcp/names.hpp"

using namespace coffer::mcp;

BOOST_AUTO_TEST_CASE(splits_at_the_first_double_underscore) {
    auto s = names::split("github__search__code");
    BOOST_REQUIRE(s);
    BOOST_TEST(s->server == "github");
    BOOST_TEST(s->name == "search__code");
    auto t = names::split("a___x");  // server "a", tool "_x"
    BOOST_REQUIRE(t);
    BOOST_TEST(t->server == "a");
    BOOST_TEST(t->name == "_x");
    BOOST_TEST(!names::split("search"));
    BOOST_TEST(!names::split("__search"));
    BOOST_TEST(!names::split("srv__"));
    BOOST_TEST(!names::split(""));
    BOOST_TEST(names::join("srv", "tool") == "srv__tool");
}

BOOST_AUTO_TEST_CASE(exposed_names_and_addressable_servers) {
    BOOST_TEST(names::valid_exposed("a-b_C9"));
    BOOST_TEST(names::valid_exposed(std::string(64, 'x')));
    BOOST_TEST(!names::valid_exposed(std::string(65, 'x')));
    BOOST_TEST(!names::valid_exposed(""));
    BOOST_TEST(!names::valid_exposed("a.b"));
    BOOST_TEST(!names::valid_exposed("a b"));
    BOOST_TEST(names::addressable_server("github"));
    BOOST_TEST(!names::addressable_server("a__b"));  // would split wrongly
    BOOST_TEST(!names::addressable_server("a_"));    // "a_" + "__" splits at "a"
    // Every addressable server round-trips.
    for (std::string server : {"x", "a_b", "a-b", "_a", "A9"}) {
        BOOST_REQUIRE(names::addressable_server(server));
        auto joined = names::join(server, "_t__u");
        auto s = names::split(joined);  // views into `joined`
        BOOST_REQUIRE(s);
        BOOST_TEST(s->server == server);
        BOOST_TEST(s->name == "_t__u");
    }
}

BOOST_AUTO_TEST_CASE(uris_are_prefixed_reversibly) {
    auto u = names::prefix_uri("fs", "file:///tmp/a b?x=1#f");
    BOOST_TEST(u == "coffer://fs/file:///tmp/a b?x=1#f");
    auto back = names::unprefix_uri(u);
    BOOST_REQUIRE(back);
    BOOST_TEST(back->server == "fs");
    BOOST_TEST(back->name == "file:///tmp/a b?x=1#f");
    BOOST_TEST(!names::unprefix_uri("file:///x"));
    BOOST_TEST(!names::unprefix_uri("coffer://fs"));
    BOOST_TEST(!names::unprefix_uri("coffer:///x"));
    BOOST_TEST(!names::unprefix_uri("coffer://fs/"));
}
