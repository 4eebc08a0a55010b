#include <boost/test/unit_test.hpp>

#include "mcp/modern.hpp"

#include <boost/json.hpp>

using namespace coffer::mcp;
namespace http = coffer::http;
namespace json = boost::json;

namespace {
rpc::Message msg(const std::string& method, json::object params) {
    rpc::Message m;
    m.kind = rpc::Kind::request;
    m.id = 1;
    m.method = method;
    m.params = std::move(params);
    return m;
}
json::object meta() {
    return json::object{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                        {"io.modelcontextprotocol/clientCapabilities", json::object{}},
                        {"io.modelcontextprotocol/logLevel", "warning"},
                        {"coffer/agent", "codex"}};
}
http::Request req(std::map<std::string, std::string> h) {
    http::Request r;
    r.headers = std::move(h);
    return r;
}
int refusal(const std::variant<modern::Meta, modern::Refusal>& v) {
    auto* r = std::get_if<modern::Refusal>(&v);
    return r ? r->code : 0;
}
}  // namespace

BOOST_AUTO_TEST_CASE(accepts_a_well_formed_request) {
    auto m = msg("tools/call", json::object{{"name", "a__b"}, {"_meta", meta()}});
    auto v = modern::check(req({{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/call"}, {"mcp-name", "a__b"}}), m);
    BOOST_REQUIRE(std::holds_alternative<modern::Meta>(v));
    auto& got = std::get<modern::Meta>(v);
    BOOST_TEST(got.agent == "codex");
    BOOST_TEST(got.log_level == 3);
    BOOST_TEST(modern::is_modern_request(req({}), m));
    BOOST_TEST(!modern::is_modern_request(req({}), msg("tools/list", {})));
}

BOOST_AUTO_TEST_CASE(refuses_what_the_revision_refuses) {
    auto m = msg("tools/call", json::object{{"name", "a__b"}, {"_meta", meta()}});
    std::map<std::string, std::string> ok{{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/call"}, {"mcp-name", "a__b"}};
    auto without = [&](const char* h) {
        auto x = ok;
        x.erase(h);
        return req(x);
    };
    auto with = [&](const char* h, const char* v) {
        auto x = ok;
        x[h] = v;
        return req(x);
    };
    BOOST_TEST(refusal(modern::check(without("mcp-protocol-version"), m)) == rpc::code::header_mismatch);
    BOOST_TEST(refusal(modern::check(without("mcp-method"), m)) == rpc::code::header_mismatch);
    BOOST_TEST(refusal(modern::check(without("mcp-name"), m)) == rpc::code::header_mismatch);
    BOOST_TEST(refusal(modern::check(with("mcp-name", "a__c"), m)) == rpc::code::header_mismatch);
    BOOST_TEST(refusal(modern::check(with("mcp-name", "=?base64?YV9fYg==?="), m)) == 0);  // "a__b"
    BOOST_TEST(refusal(modern::check(with("mcp-name", "=?base64?!!?="), m)) == rpc::code::header_mismatch);
    auto no_caps = msg("tools/list", json::object{{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}});
    BOOST_TEST(refusal(modern::check(req({{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}}), no_caps)) ==
               rpc::code::invalid_params);
    auto old = msg("tools/list", json::object{{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2025-11-25"}}}});
    BOOST_TEST(refusal(modern::check(req({{"mcp-protocol-version", "2025-11-25"}}), old)) == rpc::code::unsupported_version);
    BOOST_TEST(refusal(modern::check(req({}), msg("tools/list", {}))) == rpc::code::invalid_params);
    // Header and body disagree: HeaderMismatch, even when the body's version is one we do not speak
    // (the conformance suite's sep-2575-http-server-header-mismatch-400); both unknown: unsupported.
    auto unknown = msg("server/discover", json::object{{"_meta", {{"io.modelcontextprotocol/protocolVersion", "v999.0.0"},
                                                                  {"io.modelcontextprotocol/clientCapabilities", json::object{}}}}});
    BOOST_TEST(refusal(modern::check(req({{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "server/discover"}}), unknown)) ==
               rpc::code::header_mismatch);
    BOOST_TEST(refusal(modern::check(req({{"mcp-protocol-version", "v999.0.0"}, {"mcp-method", "server/discover"}}), unknown)) ==
               rpc::code::unsupported_version);
}

BOOST_AUTO_TEST_CASE(decodes_mirrored_header_values) {
    BOOST_TEST(*modern::decode_header("plain") == "plain");
    BOOST_TEST(*modern::decode_header("=?base64?SGVsbG8sIOS4lueVjA==?=") == "Hello, \xe4\xb8\x96\xe7\x95\x8c");
    BOOST_TEST(!modern::decode_header("bad\x01"));
    // The sentinel's base64 is decoded strictly (coffer/base64.hpp, ADR 0027): unpadded is fine,
    // a dangling character, non-zero unused bits or a third '=' are not.
    BOOST_TEST(*modern::decode_header("=?base64?YV9fYg?=") == "a__b");
    BOOST_TEST(!modern::decode_header("=?base64?YV9fY?="));
    BOOST_TEST(!modern::decode_header("=?base64?YV9fYh==?="));
    BOOST_TEST(!modern::decode_header("=?base64?YV9fYg===?="));
}
