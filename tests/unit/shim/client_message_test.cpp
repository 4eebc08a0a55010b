// shim/client_message: what the shim adds to a stateless-era (2026-07-28) request on its way to
// the daemon — identity, the mirrored headers, and Mcp-Param-* for the x-mcp-header arguments of
// tools the client listed.
#include <boost/test/unit_test.hpp>

#include "shim/client_message.hpp"

#include <boost/json.hpp>

using namespace coffer::shim;
namespace json = boost::json;

namespace {

std::string header(const HeaderList& hs, const std::string& name) {
    for (auto& [k, v] : hs)
        if (k == name) return v;
    return "(absent)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(stateless_calls_mirror_annotated_arguments_of_listed_tools) {
    ToolHeaders tools;
    learn_tool_headers(
        R"({"jsonrpc":"2.0","id":1,"result":{"tools":[)"
        R"({"name":"m__regional","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},)"
        R"({"name":"m__plain","inputSchema":{"type":"object"}}]}})",
        tools);
    BOOST_TEST(tools.count("m__regional") == 1u);
    BOOST_TEST(tools.count("m__plain") == 0u);

    Identity who{"agent-x", "/work", {}};
    auto call = annotate_stateless(
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"m__regional","arguments":{"region":"Zürich"},)"
        R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})",
        "tools/call", who, tools);
    BOOST_REQUIRE(call);
    BOOST_TEST(header(call->headers, "MCP-Protocol-Version") == "2026-07-28");
    BOOST_TEST(header(call->headers, "Mcp-Name") == "m__regional");
    BOOST_TEST(header(call->headers, "Mcp-Param-Region") == "=?base64?WsO8cmljaA==?=");
    BOOST_TEST(json::parse(call->body).at("params").at("_meta").at("coffer/agent").as_string() == "agent-x");

    // A tool not listed, or a legacy message: no Mcp-Param-*.
    auto other = annotate_stateless(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"m__other","arguments":{"region":"x"},)"
        R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})",
        "tools/call", who, tools);
    BOOST_REQUIRE(other);
    BOOST_TEST(header(other->headers, "Mcp-Param-Region") == "(absent)");
    BOOST_TEST(!annotate_stateless(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"m__regional"}})",
                                   "tools/call", who, tools));

    // A later list without the annotation forgets it.
    learn_tool_headers(R"({"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"m__regional","inputSchema":{"type":"object"}}]}})",
                       tools);
    BOOST_TEST(tools.empty());
}
