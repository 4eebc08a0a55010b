#include <boost/test/unit_test.hpp>

#include "mcp/trace_context.hpp"

using namespace coffer::mcp;

BOOST_AUTO_TEST_CASE(a_valid_traceparent_is_parsed_and_a_child_keeps_the_trace) {
    auto p = trace::parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    BOOST_REQUIRE(p);
    BOOST_TEST(p->trace_id == "0af7651916cd43dd8448eb211c80319c");
    BOOST_TEST(p->span_id == "b7ad6b7169203331");
    BOOST_TEST(p->flags == "01");
    auto c = trace::child_of(*p);
    BOOST_TEST(c.trace_id == p->trace_id);
    BOOST_TEST(c.parent_span_id == p->span_id);
    BOOST_TEST(c.span_id.size() == 16u);
    BOOST_TEST(c.span_id != p->span_id);
    BOOST_TEST(trace::parse(c.traceparent()).has_value());
}

BOOST_AUTO_TEST_CASE(malformed_traceparents_are_ignored) {
    for (const char* bad : {"", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
                            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",     // version ff
                            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",     // upper case
                            "00-00000000000000000000000000000000-b7ad6b7169203331-01",     // zero trace
                            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",     // zero span
                            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-xx",  // 00 is exactly 55
                            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x",    // later version: '-' after
                            "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"})
        BOOST_TEST(!trace::parse(bad).has_value(), bad);
    // A later version with extra fields is read by its first four.
    BOOST_TEST(trace::parse("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra").has_value());
}
