#include <boost/test/unit_test.hpp>

#include "mcp/trace_context.hpp"

using namespace coffer::mcp;

BOOST_AUTO_TEST_CASE(a_valid_traceparent_is_parsed_and_a_child_keeps_the_trace) {
    constexpr const char* kParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const auto parent = trace::parse(kParent).value_or(trace::Parent{});
    BOOST_TEST(trace::format(parent.trace_id, parent.span_id, parent.flags) == kParent);  // read back whole
    const auto child = trace::child_of(parent);
    BOOST_TEST((child.trace_id == parent.trace_id && child.parent_span_id == parent.span_id));
    BOOST_TEST((child.span_id.size() == 16u && child.span_id != parent.span_id));
    BOOST_TEST(trace::parse(child.traceparent()).has_value());
    const auto root = trace::new_root();
    BOOST_TEST((root.parent_span_id.empty() && trace::parse(root.traceparent()).has_value()));
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
