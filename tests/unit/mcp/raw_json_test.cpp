#include <boost/test/unit_test.hpp>

#include "mcp/bridge.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/sse.hpp"

using namespace coffer::mcp;

BOOST_AUTO_TEST_CASE(members_and_items_point_into_the_text) {
    std::string t = R"( { "a" : 1.50 , "b":{"x":[1,{"y":"}"}]}, "c\u0064":"v" } )";
    std::vector<raw::Member> ms;
    BOOST_REQUIRE(raw::members(t, ms));
    BOOST_REQUIRE_EQUAL(ms.size(), 3u);
    BOOST_TEST(ms[0].key == "a");
    BOOST_TEST(t.substr(ms[0].value_begin, ms[0].value_end - ms[0].value_begin) == "1.50");
    BOOST_TEST(t.substr(ms[1].value_begin, ms[1].value_end - ms[1].value_begin) == R"({"x":[1,{"y":"}"}]})");
    BOOST_TEST(ms[2].key == "cd");  // escapes decoded
    std::vector<std::string_view> items;
    BOOST_REQUIRE(raw::items(R"([ {"n":1} ,"s\"]", [ ], 2 ])", items));
    BOOST_REQUIRE_EQUAL(items.size(), 4u);
    BOOST_TEST(items[1] == R"("s\"]")");
    BOOST_TEST(items[2] == "[ ]");
    BOOST_TEST(raw::items("[]", items));
    BOOST_TEST(items.empty());
    BOOST_TEST(!raw::members("[1]", ms));
    BOOST_TEST(!raw::members(R"({"a":)", ms));
    BOOST_TEST(!raw::items(R"([1,)", items));
}

BOOST_AUTO_TEST_CASE(rewrites_one_member_and_keeps_every_other_byte) {
    std::string item = R"({"name":"echo",  "inputSchema":{"minimum": 1.50},"name2":"x"})";
    auto out = raw::replace_member(item, "name", raw::quote("srv__echo"));
    BOOST_REQUIRE(out);
    BOOST_TEST(*out == R"({"name":"srv__echo",  "inputSchema":{"minimum": 1.50},"name2":"x"})");
    BOOST_TEST(!raw::replace_member(item, "missing", "1"));
    BOOST_TEST(raw::prepend_members(R"({"a":1})", R"("t":"c")") == R"({"t":"c","a":1})");
    BOOST_TEST(raw::prepend_members(" { } ", R"("t":"c")") == R"( {"t":"c" } )");
    BOOST_TEST(*raw::member(R"({"x":{"y":2}})", "x") == R"({"y":2})");
    BOOST_TEST(raw::quote("a\"b") == R"("a\"b")");
    BOOST_TEST(*raw::decode_string(R"("a\u00e9")") == "a\xc3\xa9");
    BOOST_TEST(!raw::decode_string("abc"));
    BOOST_TEST(raw::is_object(R"( {"a":[1,2]} )"));
    BOOST_TEST(!raw::is_object("[1]"));
    BOOST_TEST(!raw::is_object(R"({"a":1} x)"));
    BOOST_TEST(!raw::is_object("{\"a\":\"\xff\"}"));
}

BOOST_AUTO_TEST_CASE(bridges_results_to_2026_07_28_only) {
    std::string r = R"({"content":[], "n":1.50})";
    BOOST_TEST(bridge::result(Version::v2025_11_25, "tools/call", r) == r);
    BOOST_TEST(bridge::result(Version::v2026_07_28, "tools/call", r) == R"({"resultType":"complete","content":[], "n":1.50})");
    BOOST_TEST(bridge::result(Version::v2026_07_28, "tools/call", R"({"resultType":"input_required"})") ==
               R"({"resultType":"input_required"})");
    BOOST_TEST(bridge::result(Version::v2026_07_28, "resources/read", "{}") ==
               R"({"resultType":"complete","ttlMs":0,"cacheScope":"private"})");
    std::string e = R"({"code":-32002,"message":"Resource not found"})";
    BOOST_TEST(bridge::error(Version::v2025_06_18, "resources/read", e) == e);
    BOOST_TEST(bridge::error(Version::v2026_07_28, "resources/read", e) == R"({"code":-32602,"message":"Resource not found"})");
    BOOST_TEST(bridge::log_rank("debug") == 0);
    BOOST_TEST(bridge::log_rank("emergency") == 7);
    BOOST_TEST(bridge::log_rank("loud") == -1);
}

BOOST_AUTO_TEST_CASE(sse_framing) {
    BOOST_TEST(sse::event("{}") == "data: {}\n\n");
    BOOST_TEST(sse::event("{}", "message") == "event: message\ndata: {}\n\n");
    BOOST_TEST(sse::event("{\n\"a\":1\r\n}") == "data: {\ndata: \"a\":1\ndata: }\n\n");
    BOOST_TEST(sse::event("{}", "message", "3-7") == "id: 3-7\nevent: message\ndata: {}\n\n");
    BOOST_TEST(sse::event("", {}, "3-1") == "id: 3-1\ndata: \n\n");  // a priming event
    BOOST_TEST(sse::comment() == ":\n\n");
}
