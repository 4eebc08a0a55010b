#define BOOST_TEST_MODULE unit_mcp
#include <boost/test/unit_test.hpp>

#include "mcp/jsonrpc.hpp"
#include "core/utf8.hpp"

#include <boost/json.hpp>

using namespace coffer::mcp;
namespace json = boost::json;

namespace {
rpc::Entry one(std::string_view body) {
    auto p = rpc::parse(body);
    BOOST_REQUIRE(!p.error);
    BOOST_REQUIRE(!p.batch);
    BOOST_REQUIRE_EQUAL(p.entries.size(), 1u);
    return p.entries[0];
}
}  // namespace

BOOST_AUTO_TEST_CASE(classifies_requests_notifications_and_responses) {
    auto r = one(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}})");
    BOOST_REQUIRE(r.message);
    BOOST_TEST((r.message->kind == rpc::Kind::request));
    BOOST_TEST(r.message->id.as_int64() == 7);
    BOOST_TEST(r.message->method == "tools/list");
    BOOST_TEST(r.message->params.at("cursor").as_string() == "x");

    auto n = one(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    BOOST_TEST((n.message->kind == rpc::Kind::notification));
    BOOST_TEST(n.message->params.is_null());

    auto res = one(R"({"jsonrpc":"2.0","id":"s-1","result":{"ok":true}})");
    BOOST_TEST((res.message->kind == rpc::Kind::response));
    BOOST_TEST(res.message->id.as_string() == "s-1");

    auto err = one(R"({"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}})");
    BOOST_TEST((err.message->kind == rpc::Kind::error_response));
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_json_rpc) {
    struct Case {
        const char* body;
        int code;
        const char* id;  // expected id JSON ("null" when unknown)
    } cases[] = {
        {R"({"id":1,"method":"x"})", rpc::code::invalid_request, "1"},
        {R"({"jsonrpc":"2.0","id":1.5,"method":"x"})", rpc::code::invalid_request, "null"},
        {R"({"jsonrpc":"2.0","id":true,"method":"x"})", rpc::code::invalid_request, "null"},
        {R"({"jsonrpc":"2.0","id":null,"method":"x"})", rpc::code::invalid_request, "null"},
        {R"({"jsonrpc":"2.0","id":2,"method":""})", rpc::code::invalid_request, "2"},
        {R"({"jsonrpc":"2.0","id":2,"method":5})", rpc::code::invalid_request, "2"},
        {R"({"jsonrpc":"2.0","id":3,"method":"x","params":[1]})", rpc::code::invalid_params, "3"},
        {R"({"jsonrpc":"2.0","id":3,"method":"x","params":"p"})", rpc::code::invalid_params, "3"},
        {R"({"jsonrpc":"2.0","id":4})", rpc::code::invalid_request, "4"},
        {R"({"jsonrpc":"2.0","id":4,"result":1,"error":{}})", rpc::code::invalid_request, "4"},
        {R"({"jsonrpc":"2.0","result":1})", rpc::code::invalid_request, "null"},
    };
    for (auto& c : cases) {
        auto e = one(c.body);
        BOOST_TEST_REQUIRE(!!e.error, c.body);
        BOOST_TEST(e.error->code == c.code, c.body);
        BOOST_TEST(json::serialize(e.error->id) == c.id, c.body);
    }
}

BOOST_AUTO_TEST_CASE(whole_body_failures) {
    BOOST_TEST(rpc::parse("{").error->code == rpc::code::parse_error);
    BOOST_TEST(rpc::parse("").error->code == rpc::code::parse_error);
    BOOST_TEST(rpc::parse("\"\xc3\x28\"").error->code == rpc::code::parse_error);
    BOOST_TEST(rpc::parse("42").error->code == rpc::code::invalid_request);
    BOOST_TEST(rpc::parse("[]").error->code == rpc::code::invalid_request);
    std::string deep(65, '[');
    BOOST_TEST(rpc::parse(deep + std::string(65, ']')).error->code == rpc::code::parse_error);
    std::string big(rpc::kMaxMessageBytes + 1, ' ');
    BOOST_TEST(rpc::parse(big).error->code == rpc::code::invalid_request);
    // Boost.JSON reads 1e999 as infinity and would forward it as `Infinity`, which is not JSON
    // (found by the mcp_message fuzz target); a large but finite number is fine.
    auto inf = rpc::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"n":-1e999}}})");
    BOOST_TEST(inf.error->code == rpc::code::parse_error);
    BOOST_TEST(!rpc::parse(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"n":1e308}})").error);
}

BOOST_AUTO_TEST_CASE(batches_keep_every_element) {
    auto p = rpc::parse(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}, 3, {"jsonrpc":"2.0","method":"n"}])");
    BOOST_REQUIRE(!p.error);
    BOOST_TEST(p.batch);
    BOOST_REQUIRE_EQUAL(p.entries.size(), 3u);
    BOOST_TEST(!!p.entries[0].message);
    BOOST_TEST(!!p.entries[1].error);
    BOOST_TEST((p.entries[2].message->kind == rpc::Kind::notification));
}

BOOST_AUTO_TEST_CASE(builds_messages_around_raw_text) {
    BOOST_TEST(rpc::result(json::value(5), R"({"a": 1.50})") == R"({"jsonrpc":"2.0","id":5,"result":{"a": 1.50}})");
    BOOST_TEST(rpc::error(json::value("x"), -32601, "nope") ==
               R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"nope"}})");
    BOOST_TEST(rpc::error(nullptr, -1, "m", json::object{{"k", 1}}) ==
               R"({"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m","data":{"k":1}}})");
    BOOST_TEST(rpc::notification("notifications/x", "") == R"({"jsonrpc":"2.0","method":"notifications/x"})");
    BOOST_TEST(rpc::request(json::value("c-1"), "roots/list", "{}") ==
               R"({"jsonrpc":"2.0","id":"c-1","method":"roots/list","params":{}})");
    BOOST_TEST(rpc::id_key(json::value("1")) != rpc::id_key(json::value(1)));
}

// The parser's UTF-8 rule is core::utf8's (one home for well-formedness).
BOOST_AUTO_TEST_CASE(utf8_validation) {
    auto valid_utf8 = [](std::string_view s) { return coffer::core::utf8::first_invalid(s) == std::string_view::npos; };
    BOOST_TEST(valid_utf8("plain"));
    BOOST_TEST(valid_utf8("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"));  // é 中 😀
    BOOST_TEST(!valid_utf8("\xc0\xaf"));          // overlong
    BOOST_TEST(!valid_utf8("\xed\xa0\x80"));      // surrogate
    BOOST_TEST(!valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
    BOOST_TEST(!valid_utf8("\xe4\xb8"));          // truncated
    BOOST_TEST(!valid_utf8("\xff"));
}
