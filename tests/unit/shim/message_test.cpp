// shim/message: the top-level scanner (kind, id, method) on good and hostile input, one-line
// framing, error responses, header-safe values.
#define BOOST_TEST_MODULE shim_unit
#include <boost/test/unit_test.hpp>

#include "shim/message.hpp"
#include "shim/options.hpp"

#include <boost/json.hpp>

#include <random>

using namespace coffer::shim;
namespace json = boost::json;

BOOST_AUTO_TEST_CASE(peek_classifies_messages) {
    auto p = peek(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__b","id":99,"method":"x"}})");
    BOOST_TEST((p.kind == MsgKind::request));
    BOOST_TEST(p.id == "7");
    BOOST_TEST(p.method == "tools/call");

    p = peek(R"(  { "method" : "notifications/initialized" , "jsonrpc":"2.0" }  )");
    BOOST_TEST((p.kind == MsgKind::notification));
    BOOST_TEST(p.method == "notifications/initialized");

    p = peek(R"({"result":{"content":[{"text":"}]\"{"}]},"jsonrpc":"2.0","id":"a\"b"})");
    BOOST_TEST((p.kind == MsgKind::response));
    BOOST_TEST(p.id == R"("a\"b")");

    p = peek(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
    BOOST_TEST((p.kind == MsgKind::response));
    BOOST_TEST(p.id.empty());

    // id null on a request makes it a notification-shaped message, flagged: the daemon refuses a
    // request id null, and so does the shim (-32600).
    p = peek(R"({"jsonrpc":"2.0","id":null,"method":"ping"})");
    BOOST_TEST((p.kind == MsgKind::notification));
    BOOST_TEST(p.null_id);
    BOOST_TEST(!p.bad_id);

    BOOST_TEST((peek(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])").kind == MsgKind::batch));
    p = peek(R"({"jsonrpc":"2.0","id":-12,"method":"m"})");
    BOOST_TEST(p.id == "-12");
    BOOST_TEST(!p.bad_id);
    p = peek(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"m"})");
    BOOST_TEST(!p.bad_id);
}

BOOST_AUTO_TEST_CASE(peek_flags_ids_no_request_can_have) {
    // What coffer-daemon refuses as an id: objects, arrays, booleans, fractions, exponents, and
    // integers beyond 64 bits. Such a message has no usable id.
    for (const char* id : {"{}", "{\"a\":1}", "[]", "[1]", "true", "false", "1.5", "-1.5e3", "1e3",
                           "18446744073709551616", "-9223372036854775809"}) {
        auto p = peek(std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"method":"tools/list"})");
        BOOST_TEST(p.bad_id, id);
        BOOST_TEST(p.id.empty(), id);
    }
    // Only for a well-formed object.
    BOOST_TEST(!peek(R"({"id":{},"method":"x")").bad_id);
    BOOST_TEST(!peek(R"({"jsonrpc":"2.0","id":"1.5","method":"m"})").bad_id);
}

BOOST_AUTO_TEST_CASE(peek_never_overreads_on_hostile_input) {
    for (const char* bad : {"", " ", "{", "}", "[", "\"", "{\"", "{\"id\"", "{\"id\":", "{\"id\":1", "{\"id\":1,",
                            "{\"id\":1}x", "{\"a\":\"\\\"}", "{\"a\":[[[[", "{\"a\":{\"b\":\"]}\"}", "null", "42",
                            "{\"method\":1}", "{\"id\":{},\"method\":\"x\"}", "{,}", "{\"a\" 1}"}) {
        auto p = peek(bad);
        BOOST_TEST((p.kind == MsgKind::invalid || p.kind == MsgKind::batch || p.kind == MsgKind::notification), bad);
    }
    // Random bytes and truncations of a valid message: no crash, no out-of-range read (ASan would
    // tell), and any non-invalid verdict on a truncation is impossible.
    std::string good = R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a__b","arguments":{"t":"q\"}"}}})";
    BOOST_TEST((peek(good).kind == MsgKind::request));
    for (std::size_t n = 0; n < good.size(); ++n) BOOST_TEST((peek(good.substr(0, n)).kind == MsgKind::invalid));
    std::mt19937 rng(42);
    std::string alphabet = "{}[]\":,\\ abc01-eE.nulltrue";
    for (int i = 0; i < 20000; ++i) {
        std::string s(rng() % 40, ' ');
        for (auto& c : s) c = alphabet[rng() % alphabet.size()];
        (void)peek(s);
    }
}

BOOST_AUTO_TEST_CASE(peek_reads_a_message_as_coffer_daemon_does) {
    // The last of a duplicated key counts and keys are unescaped — the shim's routing agrees with
    // the daemon's parser on which request this is (coffer/raw_json.hpp, ADR 0029).
    auto p = peek(R"({"jsonrpc":"2.0","id":1,"method":"ping","id":"two"})");
    BOOST_TEST((p.kind == MsgKind::request));
    BOOST_TEST(p.id == R"("two")");
    p = peek(R"({"jsonrpc":"2.0","\u0069d":5,"\u006dethod":"initi\u0061lize"})");
    BOOST_TEST((p.kind == MsgKind::request));
    BOOST_TEST(p.id == "5");
    BOOST_TEST(p.method == "initialize");
    p = peek(R"({"jsonrpc":"2.0","id":3,"method":"ping","method":7})");  // the method that counts is no string
    BOOST_TEST((p.kind != MsgKind::request));
}

BOOST_AUTO_TEST_CASE(one_line_and_errors) {
    std::string s = "{\n  \"a\": [1,\r\n 2]\n}";
    make_one_line(s);
    BOOST_TEST(s == "{  \"a\": [1, 2]}");
    BOOST_TEST(json::parse(s).at("a").as_array().size() == 2u);

    auto e = error_response("\"id-1\"", rpc_error::connection_lost, "lost\nline", json::object{{"why", "x"}});
    BOOST_TEST(e.find('\n') == std::string::npos);
    auto v = json::parse(e);
    BOOST_TEST(v.at("id").as_string() == "id-1");
    BOOST_TEST(v.at("error").at("code").as_int64() == rpc_error::connection_lost);
    BOOST_TEST(v.at("error").at("message").as_string() == "lost\nline");
    BOOST_TEST(v.at("error").at("data").at("why").as_string() == "x");
    BOOST_TEST(json::parse(error_response({}, -1, "m")).at("id").is_null());
}

BOOST_AUTO_TEST_CASE(header_values) {
    BOOST_TEST(header_safe_value("get_weather") == "get_weather");
    BOOST_TEST(header_safe_value("us-west1") == "us-west1");
    BOOST_TEST(header_safe_value("Hello, 世界") == "=?base64?SGVsbG8sIOS4lueVjA==?=");
    BOOST_TEST(header_safe_value(" padded ") == "=?base64?IHBhZGRlZCA=?=");
    BOOST_TEST(header_safe_value("line1\nline2") == "=?base64?bGluZTEKbGluZTI=?=");
    BOOST_TEST(header_safe_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
}

BOOST_AUTO_TEST_CASE(options) {
    auto o = parse_options({"--agent", "claude", "--home=/tmp/v", "--verbose"});
    BOOST_TEST(o.agent == "claude");
    BOOST_TEST(o.home == "/tmp/v");
    BOOST_TEST(o.verbose);
    BOOST_CHECK_THROW(parse_options({"--agent"}), std::invalid_argument);
    BOOST_CHECK_THROW(parse_options({"--agent="}), std::invalid_argument);
    BOOST_CHECK_THROW(parse_options({"--nope"}), std::invalid_argument);
    BOOST_CHECK_THROW(parse_options({"--no-spawn=1"}), std::invalid_argument);
    BOOST_TEST(parse_options({"--no-spawn"}).no_spawn);
    BOOST_TEST((o.transport == Options::Transport::auto_));
    BOOST_TEST((parse_options({"--transport", "http"}).transport == Options::Transport::http));
    BOOST_TEST((parse_options({"--transport=local"}).transport == Options::Transport::local));
    BOOST_CHECK_THROW(parse_options({"--transport", "tcp"}), std::invalid_argument);
    BOOST_CHECK_THROW(parse_options({"--transport"}), std::invalid_argument);
}
