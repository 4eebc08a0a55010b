// The one raw-JSON scanner (coffer/raw_json.hpp): exact spans, in-place rewrites, bounds on any
// input, and the duplicate-key policy decided once (the last member counts, keys compared after
// unescaping) — pinned against Boost.JSON, the parser coffer-daemon reads messages with.
#define BOOST_TEST_MODULE sdk_raw_json
#include <boost/test/unit_test.hpp>

#include <coffer/raw_json.hpp>

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace raw = coffer::raw_json;
namespace json = boost::json;

BOOST_AUTO_TEST_CASE(members_and_items_point_into_the_text) {
    std::string t = R"( { "a" : 1.50 , "b":{"x":[1,{"y":"}"}]}, "c\u0064":"v" } )";
    std::vector<raw::Member> ms;
    BOOST_REQUIRE(raw::members(t, ms));
    BOOST_REQUIRE_EQUAL(ms.size(), 3u);
    BOOST_TEST(ms[0].key == "a");
    BOOST_TEST(ms[0].value(t) == "1.50");
    BOOST_TEST(ms[1].value(t) == R"({"x":[1,{"y":"}"}]})");
    BOOST_TEST(ms[2].key == "cd");  // escapes decoded
    std::vector<std::string_view> items;
    BOOST_REQUIRE(raw::items(R"([ {"n":1} ,"s\"]", [ ], 2 ])", items));
    BOOST_REQUIRE_EQUAL(items.size(), 4u);
    BOOST_TEST(items[1] == R"("s\"]")");
    BOOST_TEST(items[2] == "[ ]");
    BOOST_TEST(raw::items("[]", items));
    BOOST_TEST(items.empty());
    BOOST_TEST(!raw::members("[1]", ms));
    BOOST_TEST(!raw::items(R"([1,)", items));
}

BOOST_AUTO_TEST_CASE(results_keep_their_exact_bytes) {
    std::string msg = R"({"jsonrpc":"2.0","id":7,"result":{"z":1.50,"a":[1e2,-0.0,"x\"}"]} ,"extra":null})";
    BOOST_TEST(*raw::member(msg, "result") == R"({"z":1.50,"a":[1e2,-0.0,"x\"}"]})");
    BOOST_TEST(*raw::member(msg, "id") == "7");
    BOOST_TEST(*raw::member(msg, "extra") == "null");
    BOOST_TEST(!raw::member(msg, "error"));
    BOOST_TEST(!raw::member("[1,2]", "a"));
    BOOST_TEST(!raw::member("{}", "a"));
}

BOOST_AUTO_TEST_CASE(malformed_text_is_refused_without_reading_past_the_end) {
    std::vector<raw::Member> ms;
    for (std::string_view bad : {R"({"a":)", R"({"a":"unterminated)", R"({"a\":1})", R"({"a":1)", R"({"a":1,})",
                                 R"({"a" 1})", R"({"a":1} x)", R"({"a":1}})", "{", "", "   ", R"({"a":[1,2})",
                                 "{\"\\", "{\"a\":\"\\"}) {
        BOOST_TEST(!raw::members(bad, ms), bad);
        BOOST_TEST(!raw::member(bad, "a"), bad);
    }
    // A prefix of a valid message is never read beyond its end (ASan builds check this too).
    std::string whole = R"({"id":"x\"y","method":"m","params":{"a":[1,{"b":"}"}]}})";
    for (std::size_t n = 0; n < whole.size(); ++n) {
        std::string prefix = whole.substr(0, n);  // its own allocation: a read past it is caught
        BOOST_TEST(!raw::members(prefix, ms));
    }
}

BOOST_AUTO_TEST_CASE(keys_are_compared_after_unescaping) {
    BOOST_TEST(*raw::member(R"({"\u0072esult":1})", "result") == "1");
    BOOST_TEST(*raw::member(R"( { "a\"b" : {"x":[{}]} , "r" : true } )", "r") == "true");
    BOOST_TEST(*raw::member(R"( { "a\"b" : 5 } )", "a\"b") == "5");
    BOOST_TEST(*raw::member(R"({"\ud83d\ude00":2})", "\xF0\x9F\x98\x80") == "2");
}

BOOST_AUTO_TEST_CASE(pick_finds_several_members_in_one_pass) {
    std::array<std::string_view, 4> keys{"method", "id", "result", "error"};
    std::array<std::optional<std::string_view>, 4> got;
    BOOST_TEST(raw::pick(R"({"jsonrpc":"2.0","id":7,"result":{"a":[1,"}"]},"\u0069d":8})", keys, got));
    BOOST_TEST(!got[0]);
    BOOST_TEST(*got[1] == "8");  // the last of a duplicated key, after unescaping
    BOOST_TEST(*got[2] == R"({"a":[1,"}"]})");
    BOOST_TEST(!got[3]);
    // Not an object (or a broken one): nothing is reported, even what was seen before the break.
    BOOST_TEST(!raw::pick(R"({"id":1,"result":)", keys, got));
    BOOST_TEST((!got[0] && !got[1] && !got[2] && !got[3]));
    BOOST_TEST(!raw::pick("[1]", keys, got));
}

// The duplicate-key policy: the last member counts, exactly as Boost.JSON (coffer-daemon's
// parser) and JavaScript's JSON.parse read the same text — a shim or plugin that saw the first
// "id" would route an answer to a request the daemon never saw.
BOOST_AUTO_TEST_CASE(the_last_of_a_duplicated_key_counts_as_boost_json_reads_it) {
    for (std::string_view text : {R"({"id":1,"id":2})", R"({"id":1,"\u0069d":"two"})",
                                  R"({"id":{"a":1},"x":0,"id":[3]})", R"({"id":null,"id":true})"}) {
        auto dom = json::parse(text).as_object();
        auto scanned = raw::member(text, "id");
        BOOST_REQUIRE(scanned);
        BOOST_TEST(json::parse(*scanned) == dom.at("id"), text);
    }
    auto out = raw::replace_member(R"({"name":"a","name":"b"})", "name", raw::quote("c"));
    BOOST_TEST(*out == R"({"name":"a","name":"c"})");  // the member every parser reads is the one rewritten
}

BOOST_AUTO_TEST_CASE(rewrites_one_member_and_keeps_every_other_byte) {
    std::string item = R"({"name":"echo",  "inputSchema":{"minimum": 1.50},"name2":"x"})";
    auto out = raw::replace_member(item, "name", raw::quote("srv__echo"));
    BOOST_REQUIRE(out);
    BOOST_TEST(*out == R"({"name":"srv__echo",  "inputSchema":{"minimum": 1.50},"name2":"x"})");
    BOOST_TEST(!raw::replace_member(item, "missing", "1"));
    BOOST_TEST(raw::prepend_members(R"({"a":1})", R"("t":"c")") == R"({"t":"c","a":1})");
    BOOST_TEST(raw::prepend_members(" { } ", R"("t":"c")") == R"( {"t":"c" } )");
    std::string p = R"({"name":"t","_meta":{"progressToken":"abc"}})";
    auto meta = raw::member(p, "_meta");
    auto tok = raw::member(*meta, "progressToken");
    BOOST_TEST(raw::splice(p, *tok, "17") == R"({"name":"t","_meta":{"progressToken":17}})");
}

BOOST_AUTO_TEST_CASE(strings_and_validation) {
    BOOST_TEST(raw::quote("a\"b") == R"("a\"b")");
    BOOST_TEST(*raw::decode_string(R"("a\u00e9")") == "a\xc3\xa9");
    BOOST_TEST(*raw::decode_string("\"caf\xc3\xa9\"") == "caf\xc3\xa9");
    BOOST_TEST(!raw::decode_string("abc"));
    BOOST_TEST(!raw::decode_string("\"a\x01\""));        // a raw control character
    BOOST_TEST(!raw::decode_string("\"\xff\""));          // not UTF-8
    BOOST_TEST(!raw::decode_string(R"("a"b")"));
    BOOST_TEST(raw::is_object(R"( {"a":[1,2]} )"));
    BOOST_TEST(!raw::is_object("[1]"));
    BOOST_TEST(!raw::is_object(R"({"a":1} x)"));
    BOOST_TEST(!raw::is_object("{\"a\":\"\xff\"}"));
    BOOST_TEST(raw::valid("[1, 2]"));
    BOOST_TEST(!raw::valid("[1, 2"));
    std::string deep(200, '[');
    deep += std::string(200, ']');
    BOOST_TEST(!raw::valid(deep));        // deeper than the default 128
    BOOST_TEST(raw::valid(deep, 256));
}
