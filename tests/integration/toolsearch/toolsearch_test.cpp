// coffer__search_tools (SPEC G-24) through the real daemon's /mcp: always listed, in name order;
// finds upstream tools (coffer-test-upstream over stdio via the mcp_server plugin) and never
// itself; searches only what the session may see (agent scope, disabled servers); bad arguments
// give tool errors or -32602 and leave the daemon serving; the `coffer` server name is never routed.
#define BOOST_TEST_MODULE integration_toolsearch
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

json::value search(McpClient& c, json::object args) {
    return c.request("tools/call", json::object{{"name", "coffer__search_tools"}, {"arguments", std::move(args)}}).json;
}

// The names in a successful search result, checking its shape on the way.
std::vector<std::string> found(const json::value& reply) {
    std::vector<std::string> out;
    auto& r = reply.at("result").as_object();
    BOOST_TEST(!r.at("isError").as_bool());
    BOOST_TEST(r.at("content").at(0).at("type").as_string() == "text");
    auto& sc = r.at("structuredContent").as_object();
    double last = 1e300;
    for (auto& t : sc.at("tools").as_array()) {
        auto& o = t.as_object();
        out.emplace_back(o.at("name").as_string());
        BOOST_TEST(o.at("inputSchema").is_object());
        BOOST_TEST(o.at("description").is_string());
        double score = o.at("score").to_number<double>();
        BOOST_TEST(score > 0.0);
        BOOST_TEST(score <= last);
        last = score;
    }
    return out;
}

std::string tool_error_text(const json::value& reply) {
    auto& r = reply.at("result").as_object();
    BOOST_TEST(r.at("isError").as_bool());
    return std::string(r.at("content").at(0).at("text").as_string());
}

}  // namespace

BOOST_AUTO_TEST_CASE(listed_in_order_and_finds_upstream_tools_but_not_itself) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_stdio_server(d, "up", COFFER_TEST_UPSTREAM);
    McpClient c(d);
    c.initialize();

    auto listed = names_of(c.request("tools/list").json);
    BOOST_TEST(has(listed, "coffer__search_tools"));
    BOOST_TEST(has(listed, "up__pid"), d.log());
    BOOST_TEST(std::is_sorted(listed.begin(), listed.end()));  // the built-in sits where the order puts it
    BOOST_TEST(std::count(listed.begin(), listed.end(), "coffer__search_tools") == 1);

    auto reply = search(c, {{"query", "return the server's process id"}});
    auto names = found(reply);
    BOOST_REQUIRE(!names.empty());
    BOOST_TEST(names.front() == "up__pid");
    auto& sc = reply.at("result").at("structuredContent");
    BOOST_TEST(sc.at("total_searched").as_int64() == static_cast<std::int64_t>(listed.size() - 1));  // all but itself
    BOOST_TEST(sc.at("tools").at(0).at("description").as_string() == "Returns the server's process id");
    auto text = std::string(reply.at("result").at("content").at(0).at("text").as_string());
    BOOST_TEST(text.find("1. up__pid") != std::string::npos, text);
    BOOST_TEST(names.size() <= 5u);  // top_k defaults to 5

    // Its own description matches "search tools", yet it never lists itself.
    auto self = found(search(c, {{"query", "search tools"}, {"top_k", 20}}));
    BOOST_TEST(!has(self, "coffer__search_tools"));
    BOOST_TEST(has(self, "up__search"));

    // top_k / limit bound the answer; the same question gets the same answer.
    BOOST_TEST(found(search(c, {{"query", "echo text"}, {"top_k", 1}})).size() == 1u);
    BOOST_TEST(found(search(c, {{"query", "echo text"}, {"limit", 2}})).size() == 2u);
    auto a = search(c, {{"query", "progress notifications"}}), b = search(c, {{"query", "progress notifications"}});
    BOOST_TEST(json::serialize(a.at("result")) == json::serialize(b.at("result")));
    // Nothing matches: an empty list, not an error.
    auto none = search(c, {{"query", "zzqx wholly unrelated"}});
    BOOST_TEST(found(none).empty());

    // The catalog changes (the upstream adds a tool and says so): the next search sees it.
    BOOST_TEST(!has(found(search(c, {{"query", "exists only after toggle"}})), "up__extra"));
    BOOST_TEST(c.call_tool("up__toggle").at("result").is_object());
    BOOST_TEST(eventually([&] { return has(found(search(c, {{"query", "exists only after toggle"}})), "up__extra"); }));

    // An older protocol revision gets the same tool.
    McpClient old(d);
    old.initialize("2024-11-05");
    BOOST_TEST(has(names_of(old.request("tools/list").json), "coffer__search_tools"));
    BOOST_TEST(found(search(old, {{"query", "process id"}})).front() == "up__pid");
}

BOOST_AUTO_TEST_CASE(bad_arguments) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    McpClient c(d);
    c.initialize();
    // Argument problems are tool errors the agent can correct.
    BOOST_TEST(tool_error_text(search(c, {})).find("'query' is required") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", 42}})).find("'query'") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", "   "}})).find("must not be empty") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", std::string(3000, 'x')}})).find("too long") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", "echo"}, {"top_k", 0}})).find("from 1 to 20") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", "echo"}, {"top_k", 21}})).find("from 1 to 20") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", "echo"}, {"top_k", "5"}})).find("top_k") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", "echo"}, {"top_k", 2.5}})).find("top_k") != std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", "echo"}, {"top_k", 2}, {"limit", 3}})).find("disagree") !=
               std::string::npos);
    BOOST_TEST(tool_error_text(search(c, {{"query", "echo"}, {"k", 2}})).find("Unknown argument 'k'") != std::string::npos);
    // A malformed request is a protocol error.
    auto bad = c.request("tools/call", json::object{{"name", "coffer__search_tools"}, {"arguments", "echo"}}).json;
    BOOST_TEST(bad.at("error").at("code").as_int64() == -32602);
    auto unknown = c.request("tools/call", json::object{{"name", "coffer__nope"}, {"arguments", json::object{}}}).json;
    BOOST_TEST(unknown.at("error").at("code").as_int64() == -32602);
    BOOST_TEST(std::string(unknown.at("error").at("message").as_string()).find("coffer__nope") != std::string::npos);
    // Invalid UTF-8 cannot reach it (the body is refused as a whole); valid odd text just searches.
    BOOST_TEST(found(search(c, {{"query", "🚀 \u00e9\u4e2d\u6587 \t echo"}})).front() == "a__echo");
    // Still serving.
    BOOST_TEST(c.request("ping").status == 200);
    BOOST_TEST(found(search(c, {{"query", "echoes its text"}, {"top_k", 3}})).front() == "a__echo");
    // Every search is in the invocation log like any tool call (G-23/G-24): server "coffer", the
    // outcome of each kind of answer, and never the query text.
    std::map<std::string, int> outcomes;
    BOOST_TEST(eventually([&] {
        outcomes.clear();
        auto r = d.call("GET", "/api/v1/mcp/invocations?server=coffer&limit=100");
        if (r.status != 200) return false;
        BOOST_TEST(r.body.find("echoes its text") == std::string::npos);
        auto doc = json::parse(r.body);
        for (auto& inv : doc.at("invocations").as_array()) {
            BOOST_TEST(inv.at("type").as_string() == "tool");
            BOOST_TEST(std::string(inv.at("target").as_string()).rfind("coffer__", 0) == 0);
            ++outcomes[std::string(inv.at("outcome").as_string())];
        }
        return outcomes["ok"] >= 2 && outcomes["tool_error"] >= 10 && outcomes["unknown"] >= 1 && outcomes["error"] >= 1;
    }));
    BOOST_TEST(outcomes["ok"] == 2);
    BOOST_TEST(outcomes["tool_error"] == 10);
    BOOST_TEST(outcomes["unknown"] == 1);  // coffer__nope
    BOOST_TEST(outcomes["error"] == 1);    // arguments not an object
}

BOOST_AUTO_TEST_CASE(searches_only_what_the_session_sees) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "shared");
    add_echo(d, "codexonly", "{}", R"(,"scope":[{"machine":"*","agents":["codex"]}])");
    McpClient codex(d), claude(d);
    codex.initialize("2025-11-25", json::object{{"coffer/agent", "codex"}});
    claude.initialize("2025-11-25", json::object{{"coffer/agent", "claude"}});
    auto for_codex = found(search(codex, {{"query", "echoes its text"}, {"top_k", 20}}));
    auto for_claude = found(search(claude, {{"query", "echoes its text"}, {"top_k", 20}}));
    BOOST_TEST(has(for_codex, "codexonly__echo"));
    BOOST_TEST(has(for_codex, "shared__echo"));
    BOOST_TEST(!has(for_claude, "codexonly__echo"));
    BOOST_TEST(has(for_claude, "shared__echo"));

    // A disabled server's tools are no longer found; enabled again, they are.
    BOOST_TEST(d.call("POST", "/api/v1/resources/mcp_echo/shared/disable").status == 200);
    BOOST_TEST(eventually([&] { return !has(found(search(claude, {{"query", "echoes its text"}})), "shared__echo"); }));
    BOOST_TEST(d.call("POST", "/api/v1/resources/mcp_echo/shared/enable").status == 200);
    BOOST_TEST(eventually([&] { return has(found(search(claude, {{"query", "echoes its text"}})), "shared__echo"); }));
}

BOOST_AUTO_TEST_CASE(the_coffer_server_name_is_never_routed) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    // A kind that does not reserve the name itself may create it; the gateway still ignores it.
    auto r = d.call("POST", "/api/v1/resources", R"({"kind":"mcp_echo","name":"coffer","config":{}})");
    McpClient c(d);
    c.initialize();
    auto listed = names_of(c.request("tools/list").json);
    BOOST_TEST(!has(listed, "coffer__echo"));
    BOOST_TEST(has(listed, "a__echo"));
    auto call = c.call_tool("coffer__echo", {{"text", "hi"}});
    BOOST_TEST(call.at("error").at("code").as_int64() == -32602, r.body);
    BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 1);
    if (r.status == 201) BOOST_TEST(echo_status(d, "coffer").at("open").as_int64() == 0);  // never contacted
    BOOST_TEST(!has(found(search(c, {{"query", "echoes its text"}, {"top_k", 20}})), "coffer__echo"));
}

BOOST_AUTO_TEST_CASE(the_first_search_indexes_off_the_network_thread) {
    // 20,000 tools: the first search builds their index, which takes a while. Meanwhile another
    // session's pings are answered at once — the network thread is not the one building.
    StartedDaemon s;
    auto tools_file = s.dir.path() / "tools.txt";
    {
        std::ofstream out(tools_file);
        for (int i = 0; i < 20000; ++i) out << "generated_tool_" << i << "\n";
    }
    add_stdio_server(s.d, "big", COFFER_TEST_UPSTREAM, {"--tools-file", tools_file.string()});
    McpClient a(s.d), b(s.d);
    a.initialize();
    b.initialize();
    using clk = std::chrono::steady_clock;
    std::atomic<bool> searching{true};
    clk::time_point search_done;
    json::value result;
    std::thread searcher([&] {
        result = search(a, json::object{{"query", "generated tool 1234"}});
        search_done = clk::now();
        searching = false;
    });
    int answered_meanwhile = 0;
    double worst_ping_ms = 0;
    while (searching) {
        auto t0 = clk::now();
        auto r = b.request("ping");
        auto t1 = clk::now();
        BOOST_TEST(r.json.as_object().contains("result"));
        if (searching) {
            ++answered_meanwhile;
            worst_ping_ms = std::max(worst_ping_ms, std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
    }
    searcher.join();
    auto names = found(result);
    BOOST_TEST(has(names, "big__generated_tool_1234"));
    std::cerr << "pings answered during the first search: " << answered_meanwhile << ", worst " << worst_ping_ms << " ms\n";
    std::ifstream log_file(s.d.vault() / "logs" / "daemon.log");
    std::string log((std::istreambuf_iterator<char>(log_file)), std::istreambuf_iterator<char>());
    auto at = log.find("tool search index built");
    BOOST_REQUIRE(at != std::string::npos);  // the index was built (on the indexing thread: builtin_search.cpp)
    std::cerr << log.substr(at, 80) << "\n";
    BOOST_TEST(answered_meanwhile >= 3);
}

BOOST_AUTO_TEST_CASE(a_servers_instructions_are_searched_with_its_tools) {
    // The mcp_server plugin passes the upstream's initialize instructions along with its tools
    // (coffer/mcp_instructions.hpp); the search indexes them as a field of every tool of that
    // server. Only the instructions hold the made-up word "zorblat".
    EchoDaemon echo;
    auto& d = echo.d;
    add_stdio_server(d, "ledger", COFFER_TEST_UPSTREAM, {"--instructions", "Use these tools for zorblat bookkeeping."});
    add_stdio_server(d, "plain", COFFER_TEST_UPSTREAM);
    McpClient c(d);
    c.initialize();
    auto listed = c.request("tools/list").json;
    BOOST_TEST(listed.at("result").as_object().if_contains("_meta") == nullptr);  // the key stays between plugin and host
    BOOST_TEST(json::serialize(listed).find("zorblat") == std::string::npos);
    auto names = found(search(c, {{"query", "zorblat"}, {"top_k", 20}}));
    BOOST_REQUIRE(!names.empty());
    for (auto& n : names) BOOST_TEST(n.rfind("ledger__", 0) == 0u, n);
    // With the same tools, a word both servers' tools share still ranks both.
    auto both = found(search(c, {{"query", "return the server's process id"}}));
    BOOST_TEST(has(both, "ledger__pid"));
    BOOST_TEST(has(both, "plain__pid"));
}
