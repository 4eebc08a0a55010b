// The plugin against coffer-test-upstream over stdio, through the fake host (the C ABI only):
// lazy spawn, initialize, passthrough of lists and calls byte for byte, progress, list_changed,
// log messages, server-initiated requests, cancellation, process group and pid bookkeeping.
#include <boost/test/unit_test.hpp>

#include "support.hpp"

#include <algorithm>
#include <thread>

using namespace mcps_test;

namespace {
// Exactly what the `raw` tool answers: numbers, escapes and key order must survive.
constexpr const char* kRaw =
    R"({"content":[{"type":"text","text":"raw \u00e9 result"}],"structuredContent":{"z":1.50,"a":[1e2,-0.0,12345678901234567890123,1E-7],"nested":{"b":true,"a":null}},"isError":false})";

struct Stdio {
    FakeHost host{coffer_plugin_entry_v1};
    coffer_instance* inst = host.create("mcp_server", "up", stdio_config());
    std::shared_ptr<Session> s = host.mcp_open(inst, R"({"id":"s1","client_capabilities":{"sampling":{},"roots":{}}})");
    ~Stdio() { s.reset(); }
    Result call(const std::string& name, const std::string& args = "{}", const std::string& meta = "") {
        return host.mcp_request(*s, "tools/call", tool(name, args, meta));
    }
};
}  // namespace

BOOST_AUTO_TEST_SUITE(stdio)

BOOST_FIXTURE_TEST_CASE(lazy_spawn_and_initialize, Stdio) {
    BOOST_TEST(host.children().empty());  // opening a session starts nothing
    auto r = host.mcp_request(*s, "tools/list");
    BOOST_REQUIRE_MESSAGE(r.ok(), r.details);
    BOOST_TEST(host.children().size() == 1u);
    auto v = json::parse(r.json);
    BOOST_TEST(v.at("tools").at(0).at("name").as_string() == "echo");
    BOOST_TEST(v.at("nextCursor").as_string() == "page-2");  // pagination is the gateway's job
    auto page2 = host.mcp_request(*s, "tools/list", R"({"cursor":"page-2"})");
    BOOST_TEST(json::parse(page2.json).at("tools").as_array().size() >= 7u);
    // The upstream saw notifications/initialized and the newest version.
    auto stats = json::parse(text_of(call("stats").json));
    BOOST_TEST(stats.at("initialized").as_bool());
    BOOST_TEST(stats.at("protocol_version").as_string() == "2025-11-25");
    BOOST_TEST(host.children().size() == 1u);  // one connection per (session, resource)
    auto st = status_of(host, inst);
    BOOST_TEST(st.at("health").as_string() == "ok");
    BOOST_TEST(st.at("connections").as_int64() == 1);
    BOOST_TEST(st.at("protocol_version").as_string() == "2025-11-25");
}

BOOST_FIXTURE_TEST_CASE(results_pass_byte_for_byte, Stdio) {
    auto r = call("raw");
    BOOST_REQUIRE_MESSAGE(r.ok(), r.details);
    BOOST_TEST(r.json == kRaw);
    auto e = call("echo", R"({"text":"héllo \"quoted\" \n"})");
    BOOST_TEST(text_of(e.json) == "héllo \"quoted\" \n");
    auto f = call("fail");  // a tool error is a result, unchanged
    BOOST_TEST(f.ok());
    BOOST_TEST(json::parse(f.json).at("isError").as_bool());
    auto big = call("big", R"({"bytes":2000000})");
    BOOST_TEST(text_of(big.json).size() == 2000000u);
}

BOOST_FIXTURE_TEST_CASE(resources_prompts_and_errors_pass_through, Stdio) {
    auto l = host.mcp_request(*s, "resources/list");
    BOOST_TEST(json::parse(l.json).at("resources").as_array().size() == 2u);
    auto t = host.mcp_request(*s, "resources/templates/list");
    BOOST_TEST(json::parse(t.json).at("resourceTemplates").at(0).at("uriTemplate").as_string() == "test://dynamic/{id}");
    auto rd = host.mcp_request(*s, "resources/read", R"({"uri":"test://dynamic/42"})");
    BOOST_TEST(json::parse(rd.json).at("contents").at(0).at("text").as_string() == "dynamic 42");
    auto p = host.mcp_request(*s, "prompts/get", R"({"name":"greet","arguments":{"name":"Ada"}})");
    BOOST_TEST(json::parse(p.json).at("messages").at(0).at("content").at("text").as_string() == "Hello, Ada!");
    auto missing = host.mcp_request(*s, "resources/read", R"({"uri":"test://nope"})");
    BOOST_TEST(!missing.ok());
    BOOST_TEST(missing.details == R"({"code":-32002,"message":"Resource not found: test://nope"})");  // raw error
    auto unknown = host.mcp_request(*s, "no/such/method");
    BOOST_TEST(error_code(unknown.details) == -32601);
    BOOST_TEST(host.mcp_request(*s, "ping").json == "{}");
}

BOOST_FIXTURE_TEST_CASE(progress_reaches_the_call_with_the_clients_token, Stdio) {
    auto r = call("progress", R"({"steps":3,"interval_ms":5})", R"({"progressToken":"client-tok"})");
    BOOST_REQUIRE_MESSAGE(r.ok(), r.details);
    auto progress = notifications_of(*s, "notifications/progress");
    BOOST_REQUIRE(progress.size() == 3u);
    auto& first = progress[0];
    BOOST_TEST(first.at("params").at("progressToken").as_string() == "client-tok");
    BOOST_TEST(first.at("params").at("progress").as_int64() == 1);
    // A numeric token comes back as the same number.
    call("progress", R"({"steps":1,"interval_ms":1})", R"({"progressToken":99})");
    auto last = json::parse(notifications(*s).back());
    BOOST_TEST(last.at("params").at("progressToken").as_int64() == 99);
}

BOOST_FIXTURE_TEST_CASE(list_changed_and_messages_are_forwarded, Stdio) {
    BOOST_TEST(call("toggle").ok());
    BOOST_TEST(eventually([&] { return !notifications_of(*s, "notifications/tools/list_changed").empty(); }));
    auto page2 = host.mcp_request(*s, "tools/list", R"({"cursor":"page-2"})");
    BOOST_TEST(coffer::test::has_member(json::parse(page2.json), "/tools", "name", "extra"), page2.json);
    BOOST_TEST(call("log", R"({"message":"hi there"})").ok());
    bool seen = false;
    for (auto& n : notifications_of(*s, "notifications/message"))
        if (coffer::test::string_at(n, "/params/data") == "hi there") seen = true;
    BOOST_TEST(seen);
}

BOOST_FIXTURE_TEST_CASE(server_requests_are_relayed_and_answered, Stdio) {
    AsyncCall c(*s, "tools/call", tool("sample", R"({"prompt":"2+2?"})"));
    BOOST_REQUIRE(eventually([&] { return !server_requests(*s).empty(); }));
    auto req = server_requests(*s).front();
    auto v = json::parse(req.json);
    BOOST_TEST(v.at("method").as_string() == "sampling/createMessage");
    BOOST_TEST(v.at("params").at("messages").at(0).at("content").at("text").as_string() == "2+2?");
    std::string answer = R"({"role":"assistant","content":{"type":"text","text":"4"},"model":"m"})";
    s->provider->respond(s->state, req.token, coffer::testing::cstr(answer), coffer::testing::cstr(""));
    auto r = c.wait();
    BOOST_REQUIRE_MESSAGE(r.ok(), r.details);
    BOOST_TEST(text_of(r.json) == answer);
}

BOOST_FIXTURE_TEST_CASE(client_cancellation_reaches_the_upstream, Stdio) {
    BOOST_TEST(call("echo", R"({"text":"warm"})").ok());
    AsyncCall c(*s, "tools/call", tool("slow", R"({"ms":3000})"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto t0 = std::chrono::steady_clock::now();
    s->provider->cancel(s->state, c.handle());
    auto r = c.wait(std::chrono::seconds(2));
    BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1)));
    BOOST_TEST(error_reason(r.details) == "cancelled");
    auto stats = json::parse(text_of(call("stats").json));
    BOOST_TEST(stats.at("cancelled").as_array().size() == 1u);  // notifications/cancelled arrived
}

BOOST_FIXTURE_TEST_CASE(concurrent_calls_share_one_child, Stdio) {
    std::vector<std::unique_ptr<AsyncCall>> calls;
    for (int i = 0; i < 16; ++i)
        calls.push_back(std::make_unique<AsyncCall>(*s, "tools/call", tool("echo", R"({"text":"n)" + std::to_string(i) + R"("})")));
    for (int i = 0; i < 16; ++i) BOOST_TEST(text_of(calls[i]->wait().json) == "n" + std::to_string(i));
    BOOST_TEST(host.children().size() == 1u);
}

BOOST_AUTO_TEST_CASE(sessions_have_their_own_upstreams_and_close_kills_the_group) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto a = host.mcp_open(inst, R"({"id":"a"})");
    auto b = host.mcp_open(inst, R"({"id":"b"})");
    long pa = std::stol(text_of(host.mcp_request(*a, "tools/call", tool("pid")).json));
    long pb = std::stol(text_of(host.mcp_request(*b, "tools/call", tool("pid")).json));
    BOOST_TEST(pa != pb);
    auto kids = host.children();
    BOOST_TEST(kids.size() == 2u);
    BOOST_TEST(std::count(kids.begin(), kids.end(), pa) == 1);
    long grandchild = std::stol(text_of(host.mcp_request(*a, "tools/call", tool("grandchild")).json));
    BOOST_TEST(!pid_gone(grandchild));
    a.reset();  // provider close: SIGKILL to the whole group
    BOOST_TEST(eventually([&] { return pid_gone(pa) && pid_gone(grandchild); }));
    BOOST_TEST(eventually([&] { return host.children().size() == 1u; }));  // child_exited recorded
    BOOST_TEST(host.children().front() == pb);
    BOOST_TEST(!pid_gone(pb));
    b.reset();
    BOOST_TEST(eventually([&] { return pid_gone(pb) && host.children().empty(); }));
}

BOOST_AUTO_TEST_CASE(stopping_the_resource_closes_its_upstreams) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    BOOST_TEST(host.start(inst).ok());
    auto s = host.mcp_open(inst);
    long pid = std::stol(text_of(host.mcp_request(*s, "tools/call", tool("pid")).json));
    AsyncCall pending(*s, "tools/call", tool("slow", R"({"ms":5000})"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // in flight upstream
    BOOST_TEST(host.stop(inst).ok());
    auto r = pending.wait(std::chrono::seconds(2));  // failed at once, not left hanging
    BOOST_TEST(error_reason(r.details) == "closed");
    BOOST_TEST(eventually([&] { return pid_gone(pid) && host.children().empty(); }));
    auto refused = host.mcp_request(*s, "tools/call", tool("pid"));
    BOOST_TEST(error_reason(refused.details) == "disabled");
    BOOST_TEST(host.start(inst).ok());
    BOOST_TEST(host.mcp_request(*s, "tools/call", tool("pid")).ok());  // back after start
    s.reset();
}

BOOST_AUTO_TEST_SUITE_END()
