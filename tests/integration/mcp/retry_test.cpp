// Retry only what is safe (docs/decisions/0037-safe-retry.md): coffer-test-upstream's crash_once_*
// tools exit without answering on their first call and answer on the next; its --calls-log is the
// upstream's own record of every call it ran. A read-only or idempotent tool returns a normal
// result after one retry on the respawned upstream; a destructive one, and one without
// annotations, fail and are not repeated. The invocation log and the audit say "retried".
#define BOOST_TEST_MODULE integration_mcp_retry
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"
#include "eventually.hpp"

#include <fstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

#ifndef COFFER_TEST_UPSTREAM
#error "needs coffer-test-upstream and the mcp_server plugin"
#endif

namespace {

// How many times the upstream ran `tool` (its calls log).
int runs(const fs::path& log, const std::string& tool) {
    std::ifstream in(log);
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line == tool;
    return n;
}

std::string text_of(const json::value& reply) {
    const auto& content = reply.at("result").at("content").as_array();
    return std::string(content.at(0).at("text").as_string());
}

json::object invocation(Daemon& d, const std::string& target) {
    json::object found;
    BOOST_REQUIRE(eventually([&] {
        auto v = d.call_json("GET", "/api/v1/mcp/invocations?server=up&limit=100");
        for (auto& row : v.at("invocations").as_array())
            if (row.at("target").as_string() == target) return found = row.as_object(), true;
        return false;
    }));
    return found;
}

struct RetryDaemon : StartedDaemon {
    fs::path log = dir.path() / "calls.log";
    McpClient client{d};
    RetryDaemon() {
        add_stdio_server(d, "up", COFFER_TEST_UPSTREAM, {"--calls-log", log.string()});
        client.initialize();
        client.request("tools/list");  // the session's listing carries the annotations
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_read_only_tool_is_retried_once_on_the_respawned_upstream, RetryDaemon) {
    auto r = client.call_tool("up__crash_once_readonly");
    BOOST_REQUIRE_MESSAGE(r.as_object().contains("result"), json::serialize(r) << d.log());
    BOOST_TEST(text_of(r) == "crash_once_readonly ran 2 times");
    BOOST_TEST(runs(log, "crash_once_readonly") == 2);  // the first run died, the retry answered
    auto row = invocation(d, "up__crash_once_readonly");
    BOOST_TEST(row.at("outcome").as_string() == "ok");
    BOOST_TEST(row.at("retried").as_bool());
    auto audit = d.call_json("GET", "/api/v1/audit?limit=50");
    bool audited = false;
    for (auto& e : audit.at("events").as_array())
        if (e.at("event_type").as_string() == "mcp.call.retried" && e.at("target").as_string() == "up__crash_once_readonly")
            audited = true;
    BOOST_TEST(audited, json::serialize(audit));
    // The respawned upstream serves the session as before.
    BOOST_TEST(text_of(client.call_tool("up__echo", json::object{{"text", "still here"}})) == "still here");
}

BOOST_FIXTURE_TEST_CASE(an_idempotent_tool_is_retried, RetryDaemon) {
    auto r = client.call_tool("up__crash_once_idempotent");
    BOOST_REQUIRE_MESSAGE(r.as_object().contains("result"), json::serialize(r));
    BOOST_TEST(text_of(r) == "crash_once_idempotent ran 2 times");
    BOOST_TEST(invocation(d, "up__crash_once_idempotent").at("retried").as_bool());
}

BOOST_FIXTURE_TEST_CASE(a_destructive_tool_fails_and_runs_once, RetryDaemon) {
    auto r = client.call_tool("up__crash_once_destructive");
    BOOST_REQUIRE_MESSAGE(r.as_object().contains("error"), json::serialize(r));
    BOOST_TEST(std::string(r.at("error").at("message").as_string()).find("connection lost") != std::string::npos,
               json::serialize(r));
    BOOST_TEST(r.at("error").at("data").at("reason").as_string() == "upstream_exited");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BOOST_TEST(runs(log, "crash_once_destructive") == 1);  // the upstream's own log: it ran once
    auto row = invocation(d, "up__crash_once_destructive");
    BOOST_TEST(row.at("outcome").as_string() == "error");
    BOOST_TEST(!row.at("retried").as_bool());
}

BOOST_FIXTURE_TEST_CASE(a_tool_without_annotations_is_not_retried, RetryDaemon) {
    auto r = client.call_tool("up__crash_once_plain");
    BOOST_TEST(r.as_object().contains("error"), json::serialize(r));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BOOST_TEST(runs(log, "crash_once_plain") == 1);
    // The next call (a new one, by the client) runs on the respawned upstream.
    auto again = client.call_tool("up__crash_once_plain");
    BOOST_REQUIRE_MESSAGE(again.as_object().contains("result"), json::serialize(again));
    BOOST_TEST(text_of(again) == "crash_once_plain ran 2 times");
}

BOOST_AUTO_TEST_CASE(without_a_listing_nothing_is_retried) {
    // A session that never listed the tools has no annotations to go by: fail closed.
    StartedDaemon s;
    auto log = s.dir.path() / "calls.log";
    add_stdio_server(s.d, "up", COFFER_TEST_UPSTREAM, {"--calls-log", log.string()});
    McpClient c(s.d);
    c.initialize();
    auto r = c.call_tool("up__crash_once_readonly");
    BOOST_TEST(r.as_object().contains("error"), json::serialize(r));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BOOST_TEST(runs(log, "crash_once_readonly") == 1);
}
