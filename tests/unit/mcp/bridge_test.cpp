// Protocol-revision bridging of results and errors, and SSE framing of outgoing events.
#include <boost/test/unit_test.hpp>

#include "mcp/bridge.hpp"
#include "mcp/sse.hpp"

using namespace coffer::mcp;

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
