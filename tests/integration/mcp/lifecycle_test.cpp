// Gateway sessions and the resource lifecycle: lazy provider sessions closed on DELETE, idle
// timeout and daemon stop (G-7); agent identity and scope (G-30); instances stopped, updated or
// deleted under open sessions; refresh (G-8); upstream-pids recording and the orphan sweep (G-12, D-8).
#define BOOST_TEST_MODULE mcp_lifecycle
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <signal.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::vector<json::object> pid_files(const fs::path& vault) {
    std::vector<json::object> out;
    for (auto& e : fs::directory_iterator(vault / "upstream-pids")) {
        std::ifstream in(e.path());
        std::stringstream ss;
        ss << in.rdbuf();
        auto v = parse(ss.str());
        if (v.is_object()) out.push_back(v.as_object());
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(provider_sessions_end_with_the_session) {
    EchoDaemon echo(std::map<std::string, std::string>{{"COFFER_MCP_IDLE_TIMEOUT", "1"}});
    auto& d = echo.d;
    add_echo(d, "a");

    McpClient one(d), two(d);
    one.initialize();
    two.initialize();
    BOOST_TEST(one.session() != two.session());
    one.request("tools/list");
    two.request("tools/list");
    BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 2);  // one per session: sessions share nothing

    BOOST_TEST(one.end_session() == 200);
    BOOST_TEST(eventually([&] { return echo_status(d, "a").at("open").as_int64() == 1; }));
    BOOST_TEST(one.request("ping").status == 404);  // ended sessions are gone
    BOOST_TEST(one.end_session() == 404);

    // Idle: a call resets the timer; a second of silence ends the session.
    for (int i = 0; i < 4; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        BOOST_TEST(two.request("ping").status == 200);
    }
    BOOST_TEST(eventually([&] { return echo_status(d, "a").at("open").as_int64() == 0; }, std::chrono::seconds(5)));
    BOOST_TEST(two.request("ping").status == 404);

    // A call in flight keeps its session alive past the timeout.
    McpClient three(d);
    three.initialize();
    auto slow = three.request("tools/call", json::object{{"name", "a__slow"}, {"arguments", {{"ms", 1800}}}});
    BOOST_TEST(slow.json.at("result").at("content").at(0).at("text").as_string() == "slow done");

    // Daemon stop closes every provider session (and says so in the log).
    McpClient four(d);
    four.initialize();
    four.request("tools/list");
    BOOST_TEST(d.stop() == 0);
    std::ifstream in(d.vault() / "logs" / "daemon.log");
    std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    BOOST_TEST(log.find("the daemon is stopping") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(agent_identity_and_scope) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "shared");
    add_echo(d, "codexonly", "{}", R"(,"scope":[{"machine":"*","agents":["codex"]}])");

    McpClient codex(d), claude(d), anon(d);
    codex.initialize("2025-11-25", json::object{{"coffer/agent", "codex"}, {"coffer/cwd", "/work/p"}});
    claude.initialize("2025-06-18", json::object{{"coffer/agent", "claude"}});
    anon.initialize("2024-11-05");
    BOOST_TEST(has(names_of(codex.request("tools/list").json), "codexonly__echo"));
    BOOST_TEST(!has(names_of(claude.request("tools/list").json), "codexonly__echo"));
    BOOST_TEST(!has(names_of(anon.request("tools/list").json), "codexonly__echo"));
    BOOST_TEST(has(names_of(anon.request("tools/list").json), "shared__echo"));
    // Hidden means unknown, not forbidden.
    auto refused = claude.call_tool("codexonly__echo");
    BOOST_TEST(refused.at("error").at("message").as_string().find("no server named") != std::string::npos);
    // The identity is kept on the session and handed to providers.
    auto who = parse(std::string(codex.call_tool("shared__whoami").at("result").at("content").at(0).at("text").as_string()));
    BOOST_TEST(who.at("agent").as_string() == "codex");
    BOOST_TEST(who.at("cwd").as_string() == "/work/p");
    BOOST_TEST(who.at("protocol_version").as_string() == "2025-11-25");
}

BOOST_AUTO_TEST_CASE(lifecycle_changes_close_provider_sessions_first) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    McpClient c(d);
    c.initialize();
    auto stream = c.open_stream();
    BOOST_TEST(c.call_tool("a__search", {{"query", "1"}}).at("result").is_object());
    BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 1);

    // A call in flight when the instance stops gets an error, not silence.
    auto h = c.headers();
    h["Accept"] = "application/json";
    HttpStream hang(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"a__hang"}})", h);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    BOOST_TEST(d.call("POST", "/api/v1/resources/mcp_echo/a/disable").status == 200);
    BOOST_REQUIRE(hang.read_head());
    BOOST_TEST(parse(hang.body()).at("error").at("code").as_int64() == -32603);
    BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 0);
    BOOST_TEST(echo_status(d, "a").at("closed").as_int64() == 1);
    BOOST_TEST(c.call_tool("a__search").at("error").at("code").as_int64() == -32602);
    auto ev = stream->next_event();
    BOOST_REQUIRE(ev);
    BOOST_TEST(parse(ev->data).at("method").as_string().find("list_changed") != std::string::npos);

    BOOST_TEST(d.call("POST", "/api/v1/resources/mcp_echo/a/enable").status == 200);
    BOOST_TEST(c.call_tool("a__search", {{"query", "2"}}).at("result").is_object());  // reopened lazily
    BOOST_TEST(echo_status(d, "a").at("opened").as_int64() == 2);
    BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 1);

    // A config change: the old link is closed before the update; the next call opens a new one.
    BOOST_TEST(d.call("PATCH", "/api/v1/resources/mcp_echo/a", R"({"config":{"extra_tools":2}})").status == 200);
    BOOST_TEST(has(names_of(c.request("tools/list").json), "a__t0001"));
    BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 1);

    BOOST_TEST(d.call("DELETE", "/api/v1/resources/mcp_echo/a").status == 200);
    BOOST_TEST(names_of(c.request("tools/list").json) == std::vector<std::string>{"coffer__search_tools"});  // built-in only
    add_echo(d, "z");
    BOOST_TEST(has(names_of(c.request("tools/list").json), "z__echo"));  // new servers appear at once

    // Refresh: token-protected, tells every client.
    BOOST_TEST(http_request(d.port(), "POST", "/api/v1/mcp/refresh").status == 401);
    auto r = d.call_json("POST", "/api/v1/mcp/refresh");
    BOOST_TEST(r.at("refreshed").as_bool());
    BOOST_TEST(r.at("sessions").as_int64() == 1);
    bool saw = false;
    while (auto e = stream->next_event(std::chrono::seconds(2)))
        saw |= parse(e->data).at("method").as_string() == "notifications/prompts/list_changed";
    BOOST_TEST(saw);
}

BOOST_AUTO_TEST_CASE(upstream_children_are_recorded_killed_and_swept) {
    TempDir dir;
    auto vault = dir.path() / "vault";
    std::vector<pid_t> kids;
    {
        Daemon d(vault);
        install_test_plugins(d.vault(), {"mcp_echo"});
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        add_echo(d, "k", R"({"spawn_child":true})");
        McpClient one(d), two(d);
        one.initialize();
        two.initialize();
        one.request("tools/list");
        two.request("tools/list");
        auto files = pid_files(vault);
        BOOST_REQUIRE_EQUAL(files.size(), 2u);  // one upstream per session
        for (auto& f : files) {
            auto pid = static_cast<pid_t>(f.at("pid").as_int64());
            BOOST_TEST(f.at("pgid").as_int64() == pid);  // its own process group
            BOOST_TEST(f.at("cmdline").as_string() == "sleep 600");
            BOOST_TEST(pid_alive(pid));
            kids.push_back(pid);
        }
        BOOST_TEST(one.end_session() == 200);
        BOOST_TEST(eventually([&] { return pid_files(vault).size() == 1u; }));
        auto left = static_cast<pid_t>(pid_files(vault).at(0).at("pid").as_int64());
        auto gone = kids[0] == left ? kids[1] : kids[0];
        BOOST_TEST(eventually([&] { return !pid_alive(gone); }));

        d.kill9();  // a crash: the child and its record stay behind
        BOOST_TEST(pid_alive(left));
        BOOST_TEST(pid_files(vault).size() == 1u);

        Daemon again(vault);  // the next daemon sweeps it
        BOOST_REQUIRE_MESSAGE(again.start(), again.log());
        BOOST_TEST(pid_files(vault).empty());
        BOOST_TEST(eventually([&] { return !pid_alive(left); }));

        // A clean stop leaves nothing either.
        McpClient three(again);
        three.initialize();
        three.request("tools/list");
        BOOST_REQUIRE_EQUAL(pid_files(vault).size(), 1u);
        auto last = static_cast<pid_t>(pid_files(vault).at(0).at("pid").as_int64());
        BOOST_TEST(again.stop() == 0);
        BOOST_TEST(pid_files(vault).empty());
        BOOST_TEST(eventually([&] { return !pid_alive(last); }));
    }
    for (auto p : kids) ::kill(p, SIGKILL);
}

BOOST_AUTO_TEST_CASE(a_provider_that_cannot_open_does_not_break_the_others) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "good");
    add_echo(d, "broken", R"({"fail_open":true})");
    McpClient c(d);
    c.initialize();
    auto names = names_of(c.request("tools/list").json);
    BOOST_TEST(has(names, "good__echo"));
    BOOST_TEST(!has(names, "broken__echo"));
    auto r = c.call_tool("broken__echo");
    BOOST_TEST(r.at("error").at("code").as_int64() == -32603);
    BOOST_TEST(r.at("error").at("message").as_string().find("asked to fail on open") != std::string::npos);
    BOOST_TEST(r.at("error").at("data").at("server").as_string() == "broken");
    BOOST_TEST(c.call_tool("good__search", {{"query", "q"}}).at("result").is_object());
}

BOOST_AUTO_TEST_CASE(a_slow_hook_does_not_stall_the_gateway) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    McpClient c(d);
    c.initialize();
    c.request("tools/list");
    // The action holds the plugin for 1.5 s on the service thread.
    std::thread slow([&] { d.call("POST", "/api/v1/resources/mcp_echo/a/actions/sleep", R"({"ms":1500})"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // A call to that plugin waits for it, in order, then completes…
    std::string answer;
    std::thread call([&] {
        auto r = c.call_tool("a__search", {{"query", "w"}});
        answer = std::string(r.at("result").at("content").at(0).at("text").as_string());
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // …while everything else goes on: the network thread never waits for the plugin's lock.
    auto t0 = std::chrono::steady_clock::now();
    McpClient other(d);
    BOOST_TEST(other.initialize().status == 200);
    BOOST_TEST(other.request("ping").status == 200);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST(ms < 500);
    call.join();
    BOOST_TEST(answer == "a: w");
    slow.join();
}
