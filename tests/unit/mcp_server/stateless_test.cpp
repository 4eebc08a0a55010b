// The 2026-07-28 pieces of the upstream client (plugins/mcp_server/src/stateless.hpp): discovery
// answers, the per-request _meta, x-mcp-header validation and mirroring, input_required.
#include <boost/test/unit_test.hpp>

#include "stateless.hpp"

#include <coffer/mcp_stateless.hpp>

#include <boost/json.hpp>

using namespace coffer::mcp_server;
namespace json = boost::json;

namespace {

std::string header(const std::vector<std::pair<std::string, std::string>>& hs, const std::string& name) {
    for (auto& [k, v] : hs)
        if (k == name) return v;
    return "(absent)";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stateless_upstream)

BOOST_AUTO_TEST_CASE(discovery_answers) {
    auto d = stateless::read_discovery(
        R"({"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true}},)"
        R"("_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}})");
    BOOST_REQUIRE(d);
    BOOST_TEST(d->speaks("2026-07-28"));
    BOOST_TEST(!d->speaks("2024-11-05"));
    BOOST_TEST(json::parse(d->capabilities).at("tools").at("listChanged").as_bool());
    BOOST_TEST(json::parse(d->server_info).at("name").as_string() == "s");
    BOOST_TEST(!stateless::read_discovery(R"({"tools":[]})"));  // not a discovery result
    BOOST_TEST(!stateless::read_discovery("not json"));

    auto v = stateless::unsupported_version(
        R"({"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2027-01-01"],"requested":"2026-07-28"}})");
    BOOST_REQUIRE(v);
    BOOST_TEST(v->size() == 1u);
    BOOST_TEST(v->front() == "2027-01-01");
    BOOST_TEST(!stateless::unsupported_version(R"({"code":-32601,"message":"Method not found"})"));
}

BOOST_AUTO_TEST_CASE(meta_carries_version_capabilities_and_identity) {
    auto p = json::parse(stateless::with_meta(R"({"name":"t","_meta":{"progressToken":7}})", R"({"sampling":{}})", "debug"))
                 .as_object();
    auto& meta = p.at("_meta").as_object();
    BOOST_TEST(meta.at("progressToken").as_int64() == 7);  // the client's own members stay
    BOOST_TEST(meta.at(coffer::mcp_stateless::kVersionKey).as_string() == "2026-07-28");
    BOOST_TEST(meta.at(coffer::mcp_stateless::kCapabilitiesKey).as_object().contains("sampling"));
    BOOST_TEST(meta.at(coffer::mcp_stateless::kClientInfoKey).at("name").as_string() == "coffer");
    BOOST_TEST(meta.at(coffer::mcp_stateless::kLogLevelKey).as_string() == "debug");
    BOOST_TEST(p.at("name").as_string() == "t");
    auto bare = json::parse(stateless::with_meta("{}", "{}", "")).as_object();
    BOOST_TEST(!bare.at("_meta").as_object().contains(coffer::mcp_stateless::kLogLevelKey));
}

BOOST_AUTO_TEST_CASE(header_annotations_valid_and_invalid) {
    auto ok = stateless::scan_headers(
        R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},)"
        R"("opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}}}})");
    BOOST_TEST(ok.invalid.empty());
    BOOST_REQUIRE(ok.params.size() == 2u);

    // A number, an annotation under items, under anyOf, a duplicate, a bad token, on the root.
    for (auto schema : {
             R"({"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}})",
             R"({"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}})",
             R"({"type":"object","properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}})",
             R"({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}})",
             R"({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}})",
             R"({"type":"object","x-mcp-header":"Root","properties":{}})",
         }) {
        auto scan = stateless::scan_headers(schema);
        BOOST_TEST(!scan.invalid.empty(), schema);
        BOOST_TEST(scan.params.empty());
    }
}

BOOST_AUTO_TEST_CASE(tools_list_drops_invalid_tools_and_mirrors_arguments) {
    stateless::ToolHeaders learned;
    std::vector<std::pair<std::string, std::string>> rejected;
    auto kept = stateless::filter_tools(
        R"({"tools":[{"name":"regional","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"Count"}}}},)"
        R"({"name":"bad","inputSchema":{"type":"object","properties":{"amount":{"type":"number","x-mcp-header":"Amount"}}}},)"
        R"({"name":"plain","inputSchema":{"type":"object"}}],"resultType":"complete"})",
        learned, rejected);
    auto tools = json::parse(kept).at("tools").as_array();
    BOOST_TEST(tools.size() == 2u);
    BOOST_TEST(tools[0].at("name").as_string() == "regional");
    BOOST_TEST(tools[1].at("name").as_string() == "plain");
    BOOST_REQUIRE(rejected.size() == 1u);
    BOOST_TEST(rejected[0].first == "bad");
    BOOST_TEST(learned.count("regional") == 1u);

    auto hs = stateless::request_headers(
        "tools/call", R"({"name":"regional","arguments":{"region":"Hello, 世界","n":42}})", learned);
    BOOST_TEST(header(hs, "Mcp-Method") == "tools/call");
    BOOST_TEST(header(hs, "Mcp-Name") == "regional");
    BOOST_TEST(header(hs, "Mcp-Param-Region") == "=?base64?SGVsbG8sIOS4lueVjA==?=");
    BOOST_TEST(header(hs, "Mcp-Param-Count") == "42");
    // An absent argument leaves its header out; a value of the wrong kind too.
    auto none = stateless::request_headers("tools/call", R"({"name":"regional","arguments":{"n":1.5}})", learned);
    BOOST_TEST(header(none, "Mcp-Param-Region") == "(absent)");
    BOOST_TEST(header(none, "Mcp-Param-Count") == "(absent)");
    auto read = stateless::request_headers("resources/read", R"({"uri":"file:///a b"})", learned);
    BOOST_TEST(header(read, "Mcp-Name") == "file:///a b");
    auto list = stateless::request_headers("tools/list", "{}", learned);
    BOOST_TEST(list.size() == 1u);
}

BOOST_AUTO_TEST_CASE(header_values_round_trip) {
    using namespace coffer::mcp_stateless;
    for (std::string v : {"us-west1", "Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?="}) {
        auto enc = encode_header_value(v);
        BOOST_TEST(decode_header_value(enc).value_or("(bad)") == v);
    }
    BOOST_TEST(encode_header_value("us-west1") == "us-west1");
    BOOST_TEST(encode_header_value(" padded ") == "=?base64?IHBhZGRlZCA=?=");
    BOOST_TEST(encode_header_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
}

BOOST_AUTO_TEST_CASE(input_required_round_trip) {
    BOOST_TEST(!stateless::read_input_required(R"({"resultType":"complete","content":[]})"));
    BOOST_TEST(!stateless::read_input_required(R"({"content":[]})"));
    auto in = stateless::read_input_required(
        R"({"resultType":"input_required","inputRequests":{"s1":{"method":"sampling/createMessage","params":{"maxTokens":5}}},"requestState":"st-1"})");
    BOOST_REQUIRE(in);
    BOOST_REQUIRE(in->requests.size() == 1u);
    BOOST_TEST(in->requests[0].first == "s1");
    BOOST_TEST(json::parse(in->requests[0].second).at("method").as_string() == "sampling/createMessage");
    BOOST_REQUIRE(in->state);
    auto retry = json::parse(stateless::with_input(R"({"name":"sample","inputResponses":{"old":{}}})",
                                                   {{"s1", R"({"role":"assistant","content":{"type":"text","text":"hi"}})"}},
                                                   in->state))
                     .as_object();
    BOOST_TEST(retry.at("requestState").as_string() == "st-1");
    BOOST_TEST(retry.at("inputResponses").as_object().size() == 1u);  // the earlier round's answers are replaced
    BOOST_TEST(retry.at("inputResponses").at("s1").at("content").at("text").as_string() == "hi");
}

BOOST_AUTO_TEST_SUITE_END()
