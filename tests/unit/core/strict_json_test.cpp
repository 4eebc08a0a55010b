// core/strict_json: the value as boost::json would build it, and refusals — a key twice in one
// object (any depth, with its JSON pointer), invalid UTF-8, syntax, nesting — with where they are.
#include <boost/test/unit_test.hpp>

#include "core/strict_json.hpp"

#include <boost/json.hpp>

using namespace coffer::core;
namespace json = boost::json;

namespace {
std::string reason(const Result<json::value>& r) {
    return r ? "<ok>" : std::string(r.error().details.at("reason").as_string());
}
std::string pointer(const Result<json::value>& r) {
    return r ? "<ok>" : std::string(r.error().details.at("pointer").as_string());
}
}  // namespace

BOOST_AUTO_TEST_CASE(builds_the_same_value_as_boost_json) {
    const char* texts[] = {
        R"({"kind":"skill","name":"x","config":{"a":[1,-2,3.5,true,null,"s"],"b":{}},"e":[]})",
        "  [1, {\"a\": {\"a\": {\"a\": 1}}}, \"\\u00e9\\n\"]  \n",
        R"("just a string")",
        "18446744073709551615",
        R"({"a":{"k":1},"b":{"k":1},"c":[{"k":1},{"k":2}]})",  // the same key in different objects
    };
    for (const char* t : texts) {
        auto r = parse_strict_json(t);
        BOOST_REQUIRE_MESSAGE(r.ok(), t);
        BOOST_TEST(*r == json::parse(t), t);
    }
}

BOOST_AUTO_TEST_CASE(refuses_a_key_given_twice) {
    auto r = parse_strict_json(R"({"kind":"skill","kind":"mcp_server"})");
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().code == std::string(code::bad_request));
    BOOST_TEST(reason(r) == "duplicate_key");
    BOOST_TEST(pointer(r) == "/kind");
    BOOST_TEST(r.error().details.at("key").as_string() == "kind");
    BOOST_TEST(r.error().message.find("duplicate key \"kind\" at /kind") == 0u, r.error().message);

    // At any depth, inside arrays too; the pointer escapes ~ and / (RFC 6901).
    r = parse_strict_json(R"({"config":{"servers":[{"a":1},{"x/y~z":1,"b":2,"x/y~z":3}]}})");
    BOOST_TEST(reason(r) == "duplicate_key");
    BOOST_TEST(pointer(r) == "/config/servers/1/x~1y~0z");

    // Two spellings of one key are one key.
    r = parse_strict_json(R"({"ab":1,"a\u0062":2})");
    BOOST_TEST(pointer(r) == "/ab");
}

BOOST_AUTO_TEST_CASE(refuses_invalid_utf8_syntax_and_depth_with_offsets) {
    auto r = parse_strict_json("{\"name\":\"sk\xffill\"}");
    BOOST_TEST(reason(r) == "invalid_utf8");
    BOOST_TEST(r.error().details.at("offset").as_int64() == 11);
    BOOST_TEST(r.error().message == "not valid UTF-8 at byte 11");

    r = parse_strict_json(R"({"a":)");
    BOOST_TEST(reason(r) == "syntax");
    r = parse_strict_json(R"({"a":1} {"b":2})");
    BOOST_TEST(reason(r) == "syntax");
    BOOST_TEST(r.error().details.at("offset").as_int64() == 8);
    r = parse_strict_json("");
    BOOST_TEST(reason(r) == "syntax");

    BOOST_TEST(parse_strict_json("[[[1]]]", 3).ok());
    r = parse_strict_json("[[[[1]]]]", 3);
    BOOST_TEST(reason(r) == "too_deep");
}

// Boost.JSON reads 1e999 as infinity and serializes that as `Infinity`, which no JSON parser
// reads back; such a number is refused where it is (found by the rest_body fuzz target).
BOOST_AUTO_TEST_CASE(refuses_a_number_beyond_a_double) {
    for (const char* t : {R"({"n":1e999})", R"({"n":-1e999})", R"({"n":184467440737091e999551615})"}) {
        auto r = parse_strict_json(t);
        BOOST_TEST(reason(r) == "number_out_of_range", t);
    }
    auto r = parse_strict_json(R"({"big":1e308,"tiny":1e-999,"u":18446744073709551616})");
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(json::serialize(*r) == json::serialize(json::parse(json::serialize(*r))));
}
