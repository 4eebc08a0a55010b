// Pure units of the mcp_server plugin: server names, config rules, the SSE
// parser and the backoff.
#include <boost/test/unit_test.hpp>

#include "config.hpp"
#include "health.hpp"
#include "names.hpp"
#include <coffer/sse.hpp>

using namespace coffer::mcp_server;
using coffer::SseEvent;
using coffer::SseParser;

BOOST_AUTO_TEST_SUITE(units)

BOOST_AUTO_TEST_CASE(server_names) {
    BOOST_TEST(server_name_problem("github").empty());
    BOOST_TEST(server_name_problem("my-server_2").empty());
    BOOST_TEST(server_name_problem("a__b").find("__") != std::string::npos);
    BOOST_TEST(!server_name_problem("a_").empty());
    BOOST_TEST(!server_name_problem("").empty());
    BOOST_TEST(!server_name_problem("has space").empty());
    BOOST_TEST(!server_name_problem("Coffer").empty());
    BOOST_TEST(!server_name_problem(std::string(33, 'a')).empty());
    BOOST_TEST(server_name_problem(std::string(32, 'a')).empty());
    BOOST_TEST(exposed_name("a", "search") == "a__search");
    BOOST_TEST(exposed_name_fits(std::string(32, 'a'), std::string(30, 'b')));
    BOOST_TEST(!exposed_name_fits(std::string(32, 'a'), std::string(31, 'b')));
    BOOST_TEST(!exposed_name_fits("a", "has.dot"));
}

namespace {
std::vector<std::string> problems(const std::string& config) {
    coffer::sdk::Validation v;
    validate_config(boost::json::parse(config).as_object(), v);
    std::vector<std::string> out;
    for (auto& e : v.errors()) out.emplace_back(e.at("pointer").as_string());
    return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(config_rules) {
    BOOST_TEST(problems(R"({"command":"npx","args":["-y","x"],"env":{"A":"1"},"cwd":"/tmp"})").empty());
    BOOST_TEST(problems(R"({"url":"http://127.0.0.1:3000/mcp","headers":{"Authorization":"credref:gh"}})").empty());
    BOOST_TEST(problems(R"({})") == std::vector<std::string>{""});
    BOOST_TEST(problems(R"({"command":"x","url":"http://a/"})") == std::vector<std::string>{""});
    BOOST_TEST(problems(R"({"url":"ftp://host/x"})") == std::vector<std::string>{"/url"});
    BOOST_TEST(problems(R"({"url":"http://a/","headers":{"Mcp-Session-Id":"x"}})") == std::vector<std::string>{"/headers/Mcp-Session-Id"});
    BOOST_TEST(problems(R"({"url":"http://a/","headers":{"X":"a\r\nb"}})") == std::vector<std::string>{"/headers/X"});
    BOOST_TEST(problems(R"({"command":"x","env":{"T":"credref:"}})") == std::vector<std::string>{"/env/T"});
    BOOST_TEST(problems(R"({"command":"x","env":{"T":"credref:bad/name"}})") == std::vector<std::string>{"/env/T"});
    BOOST_TEST(problems(R"({"url":"http://a/","headers":{"A":"credref:.hidden"}})") == std::vector<std::string>{"/headers/A"});
    BOOST_TEST(problems(R"({"command":"x","env":{"T":"credref:gh-token.v2_x"}})").empty());
    BOOST_TEST(problems(R"({"command":"x","cwd":"relative/dir"})") == std::vector<std::string>{"/cwd"});
    BOOST_TEST(problems(R"({"command":" npx -y"})") == std::vector<std::string>{"/command"});

    auto c = parse_config("s", boost::json::parse(R"({"command":"x","env":{"T":"credref:tok","U":"plain"}})").as_object());
    BOOST_TEST(c.timeout.count() == 60000);
    BOOST_TEST(c.auto_enable_new);
    BOOST_TEST(c.first_credential_reference() == "env T");
    BOOST_TEST(c.describe().find("credref") == std::string::npos);  // values never described
}

BOOST_AUTO_TEST_CASE(sse_parser) {
    struct Got {
        std::string type, data, id;
    };
    SseParser p;
    std::vector<Got> got;
    auto on = [&](const SseEvent& e) { got.push_back({std::string(e.type), std::string(e.data), std::string(e.id)}); };
    BOOST_TEST(p.feed(": comment\r\nid: 1\r\nevent: endpoint\r\ndata: /messages?s=1\r\n\r\ndata: {\"a\":", on));
    BOOST_TEST(p.feed("1}\n\ndata: line1\ndata:line2\n\nretry: 250\n\n", on));
    BOOST_REQUIRE(got.size() == 3u);  // the retry-only event has no data: not dispatched
    BOOST_TEST(got[0].type == "endpoint");
    BOOST_TEST(got[0].data == "/messages?s=1");
    BOOST_TEST(got[0].id == "1");
    BOOST_TEST(got[1].type == "message");
    BOOST_TEST(got[1].data == "{\"a\":1}");
    BOOST_TEST(got[2].data == "line1\nline2");
    BOOST_TEST(p.retry_ms().value_or(-1) == 250);  // but the stream's retry is known
    BOOST_TEST(p.last_event_id() == "1");
    // An event over the limit: the stream is to be dropped.
    SseParser small(16);
    BOOST_TEST(!small.feed("data: 0123456789abcdefghij\n\n", on));
    // CR LF split across chunks is one line end.
    SseParser q;
    got.clear();
    q.feed("data: x\r", on);
    q.feed("\n\r\n", on);
    BOOST_REQUIRE(got.size() == 1u);
    BOOST_TEST(got[0].data == "x");
}

BOOST_AUTO_TEST_CASE(backoff_is_bounded_and_single_flight) {
    Health h;
    auto t0 = Health::Clock::now();
    BOOST_TEST(!h.admit(t0));  // never tried: admitted
    h.start_failed("boom", false, t0);
    BOOST_TEST(h.state() == "unhealthy");
    BOOST_TEST(h.admit(t0 + std::chrono::milliseconds(100)).has_value());  // within the first delay
    BOOST_TEST(!h.admit(t0 + Health::kBackoffBase));                          // due: one attempt
    BOOST_TEST(h.admit(t0 + Health::kBackoffBase).has_value());               // a second waits for it
    h.start_failed("boom", false, t0);
    h.start_failed("boom", false, t0);
    BOOST_TEST(h.retry_in(t0).count() >= Health::kBackoffBase.count() * 4);
    for (int i = 0; i < 30; ++i) h.start_failed("boom", false, t0);
    BOOST_TEST(h.retry_in(t0).count() <= Health::kBackoffMax.count() + 1);
    h.connected("2025-11-25", R"({"name":"x"})");
    BOOST_TEST(h.state() == "ok");
    BOOST_TEST(!h.admit(t0));
    auto j = h.to_json(t0);
    BOOST_TEST(j.at("server_info").at("name").as_string() == "x");
}

BOOST_AUTO_TEST_SUITE_END()
