// HTTP upstreams: Streamable HTTP (JSON and SSE answers, session id, GET stream for
// list_changed) and the legacy HTTP+SSE fallback, plus an unreachable server.
#include <boost/test/unit_test.hpp>

#include "support.hpp"

#include <thread>

using namespace mcps_test;
using namespace std::chrono_literals;

namespace {
constexpr const char* kRaw =
    R"({"content":[{"type":"text","text":"raw \u00e9 result"}],"structuredContent":{"z":1.50,"a":[1e2,-0.0,12345678901234567890123,1E-7],"nested":{"b":true,"a":null}},"isError":false})";

bool has_notification(Session& s, const std::string& method) { return !notifications_of(s, method).empty(); }
}  // namespace

BOOST_AUTO_TEST_SUITE(http)

BOOST_AUTO_TEST_CASE(streamable_http) {
    HttpUpstream up;
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "web", http_config(up.url()));
    auto s = host.mcp_open(inst);
    auto list = host.mcp_request(*s, "tools/list");  // a JSON answer
    BOOST_REQUIRE_MESSAGE(list.ok(), list.details);
    BOOST_TEST(json::parse(list.json).at("tools").at(0).at("name").as_string() == "echo");
    auto raw = host.mcp_request(*s, "tools/call", tool("raw"));  // an SSE answer
    BOOST_TEST(raw.json == kRaw);
    auto stats = json::parse(text_of(host.mcp_request(*s, "tools/call", tool("stats")).json));
    BOOST_TEST(stats.at("initialized").as_bool());  // the same Mcp-Session-Id throughout
    BOOST_TEST(stats.at("protocol_version").as_string() == "2025-11-25");
    // Progress on the request's SSE stream, tied to the call.
    auto p = host.mcp_request(*s, "tools/call", tool("progress", R"({"steps":2,"interval_ms":5})", R"({"progressToken":"t"})"));
    BOOST_TEST(p.ok());
    int progress = 0;
    for (auto& n : notifications_of(*s, "notifications/progress"))
        if (coffer::test::string_at(n, "/params/progressToken") == "t") ++progress;
    BOOST_TEST(progress == 2);
    // list_changed arrives on the GET stream (opened after initialize).
    std::this_thread::sleep_for(200ms);
    BOOST_TEST(host.mcp_request(*s, "tools/call", tool("toggle")).ok());
    BOOST_TEST(eventually([&] { return has_notification(*s, "notifications/tools/list_changed"); }));
    // Errors pass through raw.
    auto missing = host.mcp_request(*s, "resources/read", R"({"uri":"test://nope"})");
    BOOST_TEST(missing.details == R"({"code":-32002,"message":"Resource not found: test://nope"})");
    BOOST_TEST(status_of(host, inst).at("health").as_string() == "ok");
    BOOST_TEST(host.children().empty());  // no child process for HTTP
    s.reset();
}

// The progress notifications of token `token`, as their `progress` values in arrival order.
std::vector<std::int64_t> progress_of(Session& s, const std::string& token) {
    std::vector<std::int64_t> out;
    for (auto& n : notifications_of(s, "notifications/progress"))
        if (coffer::test::string_at(n, "/params/progressToken") == token)
            out.push_back(n.at("params").at("progress").to_number<std::int64_t>());
    return out;
}

BOOST_AUTO_TEST_CASE(a_response_stream_cut_mid_call_is_resumed_with_nothing_lost) {
    // The upstream numbers its events and closes every stream's first connection after two
    // (the priming event and the first progress), before the answer.
    HttpUpstream up(false, {"--resumable", "--cut-stream-after", "2"});
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "web", http_config(up.url()));
    auto s = host.mcp_open(inst);
    auto p = host.mcp_request(*s, "tools/call", tool("progress", R"({"steps":4,"interval_ms":30})", R"({"progressToken":"r"})"));
    BOOST_TEST(p.ok(), p.details);
    BOOST_TEST(text_of(p.json).find("done") != std::string::npos, p.json);
    auto seen = progress_of(*s, "r");
    BOOST_TEST(seen == (std::vector<std::int64_t>{1, 2, 3, 4}), boost::test_tools::per_element());
    auto log = up.log();
    BOOST_TEST(log.find("cut stream") != std::string::npos, log);
    BOOST_TEST(log.find("resumed stream") != std::string::npos, log);
    // The session goes on: another call on the same connection.
    auto e = host.mcp_request(*s, "tools/call", tool("echo", R"({"text":"after"})"));
    BOOST_TEST(text_of(e.json) == "after");
    BOOST_TEST(status_of(host, inst).at("health").as_string() == "ok");
    s.reset();
}

BOOST_AUTO_TEST_CASE(a_cut_response_stream_that_cannot_be_resumed_fails_the_call_clearly) {
    // Cut the same way, but without event ids: there is nothing to resume from.
    HttpUpstream up(false, {"--cut-stream-after", "1"});
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "web", http_config(up.url()));
    auto s = host.mcp_open(inst);
    auto p = host.mcp_request(*s, "tools/call", tool("progress", R"({"steps":3,"interval_ms":30})", R"({"progressToken":"x"})"));
    BOOST_TEST(!p.ok());
    BOOST_TEST(error_message(p.details).find("could not be resumed") != std::string::npos, p.details);
    BOOST_TEST(up.log().find("resumed stream") == std::string::npos);
    // Only that call failed: the session still answers.
    BOOST_TEST(host.mcp_request(*s, "tools/list").ok());
    s.reset();
}

BOOST_AUTO_TEST_CASE(the_get_stream_is_resumed_and_what_was_sent_meanwhile_arrives) {
    // The GET stream's first connection closes after the priming event and one message, and the
    // client must wait 400 ms before reconnecting: a list_changed sent in that gap is kept by
    // the upstream and only a resumption (Last-Event-ID) brings it.
    HttpUpstream up(false, {"--resumable", "--cut-stream-after", "2", "--cut-retry-ms", "400"});
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "web", http_config(up.url()));
    auto s = host.mcp_open(inst);
    BOOST_REQUIRE(host.mcp_request(*s, "tools/list").ok());
    std::this_thread::sleep_for(200ms);  // the GET stream is open (after initialize)
    auto changed = [&] { return notifications_of(*s, "notifications/tools/list_changed").size(); };
    BOOST_TEST(host.mcp_request(*s, "tools/call", tool("toggle")).ok());  // on the GET stream, then the cut
    BOOST_TEST(eventually([&] { return changed() == 1; }));
    BOOST_TEST(host.mcp_request(*s, "tools/call", tool("toggle")).ok());  // during the gap
    BOOST_TEST(eventually([&] { return changed() == 2; }, 5s), changed());
    auto log = up.log();
    BOOST_TEST(log.find("resumed stream") != std::string::npos, log);
    s.reset();
}

BOOST_AUTO_TEST_CASE(legacy_http_sse_fallback) {
    HttpUpstream up(true);
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "old", http_config(up.url()));
    auto s = host.mcp_open(inst);
    auto list = host.mcp_request(*s, "tools/list");
    BOOST_REQUIRE_MESSAGE(list.ok(), list.details);
    auto raw = host.mcp_request(*s, "tools/call", tool("raw"));
    BOOST_TEST(raw.json == kRaw);
    auto e = host.mcp_request(*s, "tools/call", tool("echo", R"({"text":"over sse"})"));
    BOOST_TEST(text_of(e.json) == "over sse");
    BOOST_TEST(host.mcp_request(*s, "tools/call", tool("toggle")).ok());
    BOOST_TEST(eventually([&] { return has_notification(*s, "notifications/tools/list_changed"); }));
    s.reset();
}

BOOST_AUTO_TEST_CASE(upstream_gone_mid_session) {
    auto up = std::make_unique<HttpUpstream>();
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "web", http_config(up->url()));
    auto s = host.mcp_open(inst);
    BOOST_TEST(host.mcp_request(*s, "tools/list").ok());
    AsyncCall slow(*s, "tools/call", tool("slow", R"({"ms":10000})"));
    std::this_thread::sleep_for(100ms);
    up.reset();  // kill -9 of the HTTP server
    auto r = slow.wait(3s);
    BOOST_TEST(!r.ok());
    auto next = host.mcp_request(*s, "tools/list");
    BOOST_TEST(!next.ok());
    BOOST_TEST(error_message(next.details).find("cannot reach") != std::string::npos, next.details);
    s.reset();
}

BOOST_AUTO_TEST_CASE(unreachable_server_is_unhealthy_and_registration_still_succeeds) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "down", http_config("http://127.0.0.1:1/mcp"));
    // Known down right after registration (a background TCP check), before any call.
    BOOST_TEST(eventually([&] { return status_of(host, inst).at("health").as_string() == "unhealthy"; }));
    BOOST_TEST(status_of(host, inst).at("last_error").as_string().find("Connection refused") != std::string::npos);
    auto s = host.mcp_open(inst);
    auto r = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_reason(r.details) == "start_failed");
    BOOST_TEST(error_message(r.details).find("cannot reach 127.0.0.1:1") != std::string::npos, r.details);
    auto st = status_of(host, inst);
    BOOST_TEST(st.at("health").as_string() == "unhealthy");
    BOOST_TEST(st.at("last_error").as_string().find("Connection refused") != std::string::npos, st);
    auto fast = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_reason(fast.details) == "unhealthy");
    s.reset();
}

BOOST_AUTO_TEST_SUITE_END()
