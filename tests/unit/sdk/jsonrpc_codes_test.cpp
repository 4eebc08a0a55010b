// The JSON-RPC error-code table (coffer/jsonrpc_codes.hpp): no two names share a value, Coffer's own
// codes stay in the implementation-defined sub-range, and the codes other parties key on keep the
// values they have on the wire.
#define BOOST_TEST_MODULE sdk_jsonrpc_codes
#include <boost/test/unit_test.hpp>

#include <coffer/jsonrpc_codes.hpp>

#include <iterator>
#include <set>

namespace code = coffer::jsonrpc::code;

BOOST_AUTO_TEST_CASE(every_code_has_one_meaning) {
    std::set<int> seen(std::begin(code::all), std::end(code::all));
    BOOST_TEST(seen.size() == std::size(code::all));
}

BOOST_AUTO_TEST_CASE(coffer_codes_stay_out_of_the_range_mcp_reserves) {
    for (int c : {code::server_error, code::session_not_found, code::resource_not_found, code::request_timeout,
                  code::connection_lost, code::bad_gateway}) {
        BOOST_TEST(c <= -32000);
        BOOST_TEST(c >= -32019);
    }
}

BOOST_AUTO_TEST_CASE(wire_values_others_depend_on) {
    BOOST_TEST(code::invalid_request == -32600);
    BOOST_TEST(code::session_not_found == -32001);  // what the official SDK servers send with 404
    BOOST_TEST(code::resource_not_found == -32002);  // MCP ≤ 2025-11-25
    BOOST_TEST(code::header_mismatch == -32020);
    BOOST_TEST(code::unsupported_version == -32022);
    BOOST_TEST(code::request_cancelled == -32800);
}
