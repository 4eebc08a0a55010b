#include <boost/test/unit_test.hpp>

#include "mcp/catalog.hpp"

using namespace coffer::mcp;

BOOST_AUTO_TEST_CASE(exposes_items_under_the_server_name) {
    auto t = Catalog::expose("tools/list", "gh", R"({"name":"search","inputSchema":{"x":1.0}})");
    BOOST_REQUIRE(t);
    BOOST_TEST(t->first == "gh__search");
    BOOST_TEST(t->second == R"({"name":"gh__search","inputSchema":{"x":1.0}})");
    auto r = Catalog::expose("resources/list", "fs", R"({"uri":"file:///a","name":"a"})");
    BOOST_TEST(r->second == R"({"uri":"coffer://fs/file:///a","name":"a"})");
    auto tpl = Catalog::expose("resources/templates/list", "fs", R"({"uriTemplate":"file:///{p}","name":"t"})");
    BOOST_TEST(tpl->first == "coffer://fs/file:///{p}");
    BOOST_TEST(!Catalog::expose("tools/list", "gh", R"({"name":"has space"})"));
    BOOST_TEST(!Catalog::expose("tools/list", "gh", R"({"name":")" + std::string(70, 'x') + R"("})"));
    BOOST_TEST(!Catalog::expose("tools/list", "gh", R"({"title":"no name"})"));
    BOOST_TEST(!Catalog::expose("tools/list", "gh", R"("not an object")"));
    BOOST_TEST(Catalog::items_member("resources/templates/list") == "resourceTemplates");
}
