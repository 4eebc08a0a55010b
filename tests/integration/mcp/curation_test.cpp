// Capability curation (G-20…G-22), the invocation log (G-23) and scope (G-30, R-5) in the real
// daemon: mcp_echo for fast in-process checks, the bundled mcp_server kind with
// coffer-test-upstream (stdio, --tools-file to change its tool list) for restarts, upgrades and
// the auto_enable_new policy.
#define BOOST_TEST_MODULE integration_mcp_curation
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

json::value rest(Daemon& d, const std::string& m, const std::string& t, const std::string& body, int expect) {
    int status = 0;
    auto v = d.call_json(m, t, body, &status);
    BOOST_TEST(status == expect, m << " " << t << " -> " << status << " " << json::serialize(v));
    return v;
}

json::value set_cap(Daemon& d, const std::string& server, const std::string& type, const std::string& verb,
                    const std::string& name, int expect = 200) {
    return rest(d, "POST", "/api/v1/mcp/servers/" + server + "/" + type + "/" + verb,
                json::serialize(json::object{{"name", name}}), expect);
}

// The upstream tools a session lists (the gateway's own coffer__* tools are always there).
std::vector<std::string> tool_names(McpClient& c) {
    std::vector<std::string> out;
    for (auto& n : names_of(c.request("tools/list").json))
        if (n.rfind("coffer__", 0) != 0) out.push_back(n);
    return out;
}

std::string error_message(const json::value& reply) {
    auto* e = reply.as_object().if_contains("error");
    return e ? std::string(e->at("message").as_string()) : std::string();
}
std::int64_t error_code(const json::value& reply) {
    auto* e = reply.as_object().if_contains("error");
    return e ? e->at("code").as_int64() : 0;
}

json::array audit_events(Daemon& d, const std::string& type) {
    json::array out;
    auto all = rest(d, "GET", "/api/v1/audit?limit=1000", "", 200);
    for (auto& e : all.at("events").as_array())
        if (e.at("event_type").as_string() == type) out.push_back(e);
    return out;
}

json::array invocations(Daemon& d, const std::string& query = "") {
    return rest(d, "GET", "/api/v1/mcp/invocations" + query, "", 200).at("invocations").as_array();
}

const json::object* find_cap(const json::value& caps, const char* member, const std::string& name) {
    for (auto& c : caps.at(member).as_array())
        if (c.at("name").as_string() == name) return &c.as_object();
    return nullptr;
}

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::trunc) << text;
}

// An mcp_server resource running coffer-test-upstream over stdio, reading `tools_file`.
void add_upstream(Daemon& d, const std::string& name, const fs::path& tools_file) {
    add_stdio_server(d, name, COFFER_TEST_UPSTREAM, {"--tools-file", tools_file.string()});
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_disabled_tool_is_hidden_and_refused_without_reaching_the_provider) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    McpClient c(d);
    c.initialize();
    BOOST_TEST(has(tool_names(c), "a__echo"));

    auto r = set_cap(d, "a", "tools", "disable", "echo");
    BOOST_TEST(r.at("capability").at("enabled").as_bool() == false);
    BOOST_TEST(r.at("capability").at("exposed_name").as_string() == "a__echo");
    auto names = tool_names(c);
    BOOST_TEST(!has(names, "a__echo"));
    BOOST_TEST(has(names, "a__search"));  // only that one tool
    auto refused = c.call_tool("a__echo", json::object{{"text", "hi"}});
    BOOST_TEST(error_code(refused) == -32000);
    BOOST_TEST(error_message(refused) == "Tool a__echo is disabled");
    BOOST_TEST(refused.at("error").at("data").at("code").as_string() == "TOOL_DISABLED");

    // A new session that never listed: refused before any provider session is opened.
    McpClient fresh(d);
    fresh.initialize();
    int opened_before = static_cast<int>(echo_status(d, "a").at("opened").as_int64());
    BOOST_TEST(error_message(fresh.call_tool("a__echo")) == "Tool a__echo is disabled");
    BOOST_TEST(echo_status(d, "a").at("opened").as_int64() == opened_before);

    // The namespaced name is accepted too; the choice is audited with the actor.
    set_cap(d, "a", "tools", "disable", "a__search");
    BOOST_TEST(!has(tool_names(c), "a__search"));
    auto events = audit_events(d, "capability_disabled");
    BOOST_REQUIRE(events.size() == 2u);
    BOOST_TEST(events[0].at("payload").at("name").as_string() == "search");
    BOOST_TEST(events[0].at("actor").as_string() == "api");

    set_cap(d, "a", "tools", "enable", "echo");
    BOOST_TEST(has(tool_names(c), "a__echo"));
    auto ok = c.call_tool("a__echo", json::object{{"text", "back"}});
    BOOST_TEST(ok.at("result").at("content").at(0).at("text").as_string() == "back");
    BOOST_TEST(audit_events(d, "capability_enabled").size() == 1u);
}

BOOST_AUTO_TEST_CASE(bad_curation_requests_change_nothing) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    auto code = [](const json::value& v) { return std::string(v.at("error").at("code").as_string()); };
    BOOST_TEST(code(set_cap(d, "nosuch", "tools", "disable", "echo", 404)) == "NOT_FOUND");
    BOOST_TEST(code(set_cap(d, "a", "widgets", "disable", "echo", 404)) == "NOT_FOUND");
    BOOST_TEST(code(set_cap(d, "a", "tools", "disable", "", 400)) == "VALIDATION_FAILED");
    BOOST_TEST(code(set_cap(d, "a", "tools", "disable", std::string(80, 'x'), 400)) == "VALIDATION_FAILED");
    BOOST_TEST(code(set_cap(d, "a", "tools", "disable", "bad name!", 400)) == "VALIDATION_FAILED");
    BOOST_TEST(code(rest(d, "POST", "/api/v1/mcp/servers/a/tools/disable", "not json", 400)) == "BAD_REQUEST");
    BOOST_TEST(code(rest(d, "POST", "/api/v1/mcp/servers/a/tools/disable", R"({"name":7})", 400)) == "VALIDATION_FAILED");
    BOOST_TEST(audit_events(d, "capability_disabled").empty());
    auto caps = rest(d, "GET", "/api/v1/mcp/servers/a/capabilities", "", 200);
    for (auto& t : caps.at("tools").as_array()) BOOST_TEST(t.at("enabled").as_bool());
    BOOST_TEST(code(rest(d, "GET", "/api/v1/mcp/servers/nosuch/capabilities", "", 404)) == "NOT_FOUND");
    BOOST_TEST(code(rest(d, "GET", "/api/v1/mcp/invocations?limit=0", "", 400)) == "BAD_REQUEST");
    BOOST_TEST(code(rest(d, "GET", "/api/v1/mcp/invocations?limit=abc", "", 400)) == "BAD_REQUEST");
    BOOST_TEST(rest(d, "GET", "/api/v1/daemon/status", "", 200).at("status").as_string() == "ready");
}

// A live capability listing waits for the server (here 3 s to initialize); other REST calls are
// answered meanwhile, and the listing still arrives.
BOOST_AUTO_TEST_CASE(a_slow_capability_listing_does_not_hold_other_rest_calls) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE(d.start());
    add_stdio_server(d, "slow", COFFER_TEST_UPSTREAM, {"--init-delay", "3000"});
    std::atomic<bool> listed{false};
    json::value caps;
    int caps_status = 0;
    std::thread lister([&] {
        caps = d.call_json("GET", "/api/v1/mcp/servers/slow/capabilities", "", &caps_status);
        listed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int i = 0; i < 5; ++i) {
        rest(d, "GET", "/api/v1/resources", "", 200);
        rest(d, "GET", "/api/v1/mcp/servers/slow/capabilities?live=false", "", 200);
    }
    BOOST_TEST(!listed.load(), "REST calls waited for the live listing");
    lister.join();
    BOOST_TEST(caps_status == 200);
    BOOST_TEST(caps.at("live").as_bool());
    BOOST_TEST(find_cap(caps, "tools", "echo"));
}

BOOST_AUTO_TEST_CASE(invocations_are_logged_without_arguments_or_results) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    add_echo(d, "b");
    McpClient c(d);
    c.initialize("2025-11-25", json::object{{"coffer/agent", "tester"}});
    const std::string secret_arg = "ARG-7f3c9e-never-logged";
    auto ok = c.call_tool("a__echo", json::object{{"text", secret_arg}});
    BOOST_TEST(ok.at("result").at("content").at(0).at("text").as_string() == secret_arg);
    c.call_tool("a__tool_error");
    c.call_tool("a__fail");
    c.call_tool("zz__echo");
    set_cap(d, "b", "tools", "disable", "echo");
    c.call_tool("b__echo", json::object{{"text", secret_arg}});

    json::array rows;
    BOOST_TEST(eventually([&] { return (rows = invocations(d)).size() == 5u; }));
    BOOST_REQUIRE(rows.size() == 5u);
    // Newest first.
    BOOST_TEST(rows[0].at("target").as_string() == "b__echo");
    BOOST_TEST(rows[0].at("outcome").as_string() == "disabled");
    BOOST_TEST(rows[1].at("target").as_string() == "zz__echo");
    BOOST_TEST(rows[1].at("outcome").as_string() == "unknown");
    BOOST_TEST(rows[2].at("outcome").as_string() == "error");
    BOOST_TEST(rows[2].at("error_code").as_int64() == -32042);
    BOOST_TEST(rows[3].at("outcome").as_string() == "tool_error");
    BOOST_TEST(rows[4].at("outcome").as_string() == "ok");
    BOOST_TEST(rows[4].at("server").as_string() == "a");
    BOOST_TEST(rows[4].at("type").as_string() == "tool");
    BOOST_TEST(rows[4].at("agent").as_string() == "tester");
    BOOST_TEST(rows[4].at("session").as_string() == c.session());
    BOOST_TEST(rows[4].at("duration_ms").as_int64() >= 0);
    BOOST_TEST(json::serialize(rows).find(secret_arg) == std::string::npos);

    // Filter and limit, over REST and the CLI (--json: one document, key "invocations").
    auto only_b = invocations(d, "?server=b");
    BOOST_TEST(only_b.size() == 1u);
    auto cli = d.cli({"mcp", "invocations", "--server", "a", "--limit", "2", "--json"});
    BOOST_TEST(cli.exit_code == 0, cli.out << cli.err);
    auto doc = parse(cli.out);
    BOOST_TEST(doc.at("invocations").as_array().size() == 2u);
    BOOST_TEST(doc.at("invocations").at(0).at("server").as_string() == "a");

    // Nothing of the arguments or results in the table itself.
    d.stop();
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open((d.vault() / "coffer.db").c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT * FROM mcp_invocations", -1, &st, nullptr);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        ++n;
        for (int i = 0; i < sqlite3_column_count(st); ++i) {
            auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
            BOOST_TEST((t == nullptr || std::string(t).find(secret_arg) == std::string::npos));
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    BOOST_TEST(n == 5);
}

BOOST_AUTO_TEST_CASE(invocations_have_a_retention_policy) {
    EchoDaemon echo;
    auto& d = echo.d;
    bool found = false;
    auto policies = rest(d, "GET", "/api/v1/retention", "", 200);
    for (auto& e : policies.at("retention").as_array())
        if (e.at("table").as_string() == "invocations") found = e.at("days").as_int64() == 30;
    BOOST_TEST(found);
    BOOST_TEST(rest(d, "PUT", "/api/v1/retention/invocations", R"({"days":7})", 200).at("retention").at("days").as_int64() == 7);
    BOOST_TEST(audit_events(d, "retention_changed").size() == 1u);
}

BOOST_AUTO_TEST_CASE(preferences_survive_restarts_upgrades_and_absence) {
    TempDir dir;
    auto vault = dir.path() / "vault";
    auto tools_file = dir.path() / "tools.txt";
    write_file(tools_file, "");
    {
        Daemon d(vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        add_upstream(d, "up", tools_file);
        auto cli = d.cli({"mcp", "tool", "disable", "up", "echo"});
        BOOST_TEST(cli.exit_code == 0, cli.out << cli.err);
        McpClient c(d);
        c.initialize();
        auto names = tool_names(c);
        BOOST_TEST(!has(names, "up__echo"));
        BOOST_TEST(has(names, "up__search"));
        // The upstream drops the tool (an upgrade): the preference is remembered while it is absent.
        write_file(tools_file, "-echo\n");
        auto caps = rest(d, "GET", "/api/v1/mcp/servers/up/capabilities", "", 200);
        BOOST_TEST(caps.at("live").as_bool());
        auto* echo = find_cap(caps, "tools", "echo");
        BOOST_REQUIRE(echo);
        BOOST_TEST(echo->at("present").as_bool() == false);
        BOOST_TEST(echo->at("enabled").as_bool() == false);
        BOOST_TEST(find_cap(caps, "tools", "search")->at("present").as_bool());
        d.stop();
    }
    {
        Daemon d(vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        // Back again after a restart, with one new tool: echo stays disabled, the new one follows the policy.
        write_file(tools_file, "brand_new\n");
        McpClient c(d);
        c.initialize();
        auto names = tool_names(c);
        BOOST_TEST(!has(names, "up__echo"));
        BOOST_TEST(has(names, "up__brand_new"));
        BOOST_TEST(error_message(c.call_tool("up__echo")) == "Tool up__echo is disabled");
        auto cli = d.cli({"mcp", "tools", "up", "--json"});
        BOOST_TEST(cli.exit_code == 0, cli.out << cli.err);
        auto doc = parse(cli.out);
        BOOST_TEST(find_cap(doc, "tools", "echo")->at("enabled").as_bool() == false);
        BOOST_TEST(find_cap(doc, "tools", "brand_new")->at("enabled").as_bool() == true);
        BOOST_TEST(find_cap(doc, "tools", "brand_new")->at("origin").as_string() == "policy");
        BOOST_TEST(find_cap(doc, "resources", "test://static/hello"));
        BOOST_TEST(find_cap(doc, "prompts", "greet"));
        bool audited = false;
        BOOST_TEST(eventually([&] {
            for (auto& e : audit_events(d, "capabilities_discovered"))
                for (auto& n : e.at("payload").at("names").as_array())
                    if (n.as_string() == "brand_new") audited = e.at("payload").at("enabled").as_bool();
            return audited;
        }));
        cli = d.cli({"mcp", "tool", "enable", "up", "echo"});
        BOOST_TEST(cli.exit_code == 0, cli.out << cli.err);
        BOOST_TEST(has(tool_names(c), "up__echo"));
    }
}

// G-20 for resource templates: one template hidden from resources/templates/list, the reads of the
// URIs it describes refused (while a listed resource stays readable), the choice kept across a
// restart and undone from the CLI.
BOOST_AUTO_TEST_CASE(a_resource_template_is_curated_one_by_one_and_survives_a_restart) {
    TempDir dir;
    auto vault = dir.path() / "vault";
    auto tools_file = dir.path() / "tools.txt";
    write_file(tools_file, "");
    auto templates = [](McpClient& c) {
        std::vector<std::string> out;
        auto r = c.request("resources/templates/list").json;
        for (auto& t : r.at("result").at("resourceTemplates").as_array()) out.emplace_back(t.at("uriTemplate").as_string());
        return out;
    };
    auto read = [](McpClient& c, const std::string& uri) { return c.request("resources/read", json::object{{"uri", uri}}).json; };
    {
        Daemon d(vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        add_upstream(d, "up", tools_file);
        McpClient c(d);
        c.initialize();
        BOOST_TEST(has(templates(c), "coffer://up/test://dynamic/{id}"));
        BOOST_TEST(read(c, "coffer://up/test://dynamic/7").at("result").at("contents").at(0).at("text").as_string() == "dynamic 7");
        auto caps = rest(d, "GET", "/api/v1/mcp/servers/up/capabilities", "", 200);
        BOOST_REQUIRE(find_cap(caps, "templates", "test://dynamic/{id}"));
        BOOST_TEST(find_cap(caps, "templates", "test://dynamic/{id}")->at("exposed_name").as_string() == "coffer://up/test://dynamic/{id}");

        auto r = set_cap(d, "up", "templates", "disable", "coffer://up/test://dynamic/{id}");
        BOOST_TEST(r.at("capability").at("type").as_string() == "template");
        BOOST_TEST(!has(templates(c), "coffer://up/test://dynamic/{id}"));
        auto refused = read(c, "coffer://up/test://dynamic/8");
        BOOST_TEST(error_code(refused) == -32000);
        BOOST_TEST(refused.at("error").at("data").at("code").as_string() == "TEMPLATE_DISABLED", json::serialize(refused));
        BOOST_TEST(error_message(refused) == "Resource template coffer://up/test://dynamic/{id} is disabled");
        // Not described by it (another path) and listed resources: still read.
        BOOST_TEST(read(c, "coffer://up/test://static/hello").at("result").at("contents").at(0).at("text").as_string() == "hello world");
        BOOST_TEST(error_code(read(c, "coffer://up/test://dynamic/8/more")) != -32000);
        d.stop();
    }
    {
        Daemon d(vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        McpClient c(d);
        c.initialize();
        BOOST_TEST(!has(templates(c), "coffer://up/test://dynamic/{id}"));
        BOOST_TEST(read(c, "coffer://up/test://dynamic/9").at("error").at("data").at("code").as_string() == "TEMPLATE_DISABLED");
        auto cli = d.cli({"mcp", "tools", "up", "--json"});
        BOOST_TEST(cli.exit_code == 0, cli.out << cli.err);
        BOOST_TEST(find_cap(parse(cli.out), "templates", "test://dynamic/{id}")->at("enabled").as_bool() == false);
        cli = d.cli({"mcp", "template", "enable", "up", "test://dynamic/{id}"});
        BOOST_TEST(cli.exit_code == 0, cli.out << cli.err);
        BOOST_TEST(has(templates(c), "coffer://up/test://dynamic/{id}"));
        BOOST_TEST(read(c, "coffer://up/test://dynamic/9").at("result").at("contents").at(0).at("text").as_string() == "dynamic 9");
    }
}

BOOST_AUTO_TEST_CASE(auto_enable_new_false_starts_new_capabilities_disabled) {
    TempDir dir;
    auto tools_file = dir.path() / "tools.txt";
    write_file(tools_file, "");
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    json::object config{{"command", COFFER_TEST_UPSTREAM},
                        {"args", json::array{"--tools-file", tools_file.string()}},
                        {"auto_enable_new", false}};
    rest(d, "POST", "/api/v1/resources",
         json::serialize(json::object{{"kind", "mcp_server"}, {"name", "strict"}, {"config", config}}), 201);
    McpClient c(d);
    c.initialize();
    // Everything is new at the first listing: nothing shows until the user enables it.
    BOOST_TEST(tool_names(c).empty());
    BOOST_TEST(error_message(c.call_tool("strict__echo")) == "Tool strict__echo is disabled");
    bool audited = false;
    BOOST_TEST(eventually([&] {
        for (auto& e : audit_events(d, "capabilities_discovered"))
            if (e.at("payload").at("type").as_string() == "tool")
                audited = !e.at("payload").at("enabled").as_bool() && e.at("payload").at("count").as_int64() >= 10;
        return audited;
    }));
    set_cap(d, "strict", "tools", "enable", "echo");
    BOOST_TEST(tool_names(c) == std::vector<std::string>{"strict__echo"});
    // A tool added by an upgrade stays hidden and its discovery is audited as disabled.
    write_file(tools_file, "later\n");
    rest(d, "POST", "/api/v1/mcp/refresh", "{}", 200);
    BOOST_TEST(tool_names(c) == std::vector<std::string>{"strict__echo"});
    bool later = false;
    BOOST_TEST(eventually([&] {
        for (auto& e : audit_events(d, "capabilities_discovered"))
            for (auto& n : e.at("payload").at("names").as_array())
                if (n.as_string() == "later") later = !e.at("payload").at("enabled").as_bool();
        return later;
    }));
    auto caps = rest(d, "GET", "/api/v1/mcp/servers/strict/capabilities", "", 200);
    BOOST_TEST(caps.at("auto_enable_new").as_bool() == false);
    BOOST_TEST(find_cap(caps, "tools", "later")->at("enabled").as_bool() == false);
    // Prompts and resources follow the same policy.
    BOOST_TEST(find_cap(caps, "prompts", "greet")->at("enabled").as_bool() == false);
    auto read = c.request("resources/read", json::object{{"uri", "coffer://strict/test://static/hello"}});
    BOOST_TEST(error_message(read.json) == "Resource coffer://strict/test://static/hello is disabled");
    auto prompt = c.request("prompts/get", json::object{{"name", "strict__greet"}, {"arguments", {{"name", "x"}}}});
    BOOST_TEST(error_message(prompt.json) == "Prompt strict__greet is disabled");
    set_cap(d, "strict", "prompts", "enable", "greet");
    prompt = c.request("prompts/get", json::object{{"name", "strict__greet"}, {"arguments", {{"name", "x"}}}});
    BOOST_TEST(prompt.json.as_object().contains("result"), json::serialize(prompt.json));
}

BOOST_AUTO_TEST_CASE(out_of_scope_servers_are_never_started_and_unknown_to_sessions) {
    TempDir dir;
    auto tools_file = dir.path() / "tools.txt";
    write_file(tools_file, "");
    Daemon d(dir.path() / "vault", {{"COFFER_MACHINE", "this-box"}});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    // Each server touches a marker file when it is spawned.
    auto spawned = [&](const std::string& name) { return fs::exists(dir.path() / ("spawned-" + name)); };
    auto add = [&](const std::string& name, const std::string& scope) {
        std::string script = "touch '" + (dir.path() / ("spawned-" + name)).string() + "'; exec '" +
                             std::string(COFFER_TEST_UPSTREAM) + "'";
        json::object config{{"command", "/bin/sh"}, {"args", json::array{"-c", script}}};
        rest(d, "POST", "/api/v1/resources",
             json::serialize(json::object{{"kind", "mcp_server"}, {"name", name}, {"config", config},
                                          {"scope", json::parse(scope)}}),
             201);
    };
    add("here", R"([{"machine":"this-box","agents":["*"]}])");
    add("far", R"([{"machine":"other-box","agents":["*"]}])");
    add("claudeonly", R"([{"machine":"*","agents":["claude"]}])");

    McpClient anon(d), claude(d);
    anon.initialize();
    claude.initialize("2025-11-25", json::object{{"coffer/agent", "claude"}});
    auto a = tool_names(anon);
    BOOST_TEST(has(a, "here__echo"));
    BOOST_TEST(!has(a, "far__echo"));
    BOOST_TEST(!has(a, "claudeonly__echo"));  // no identity: only "*" entries
    BOOST_TEST(has(tool_names(claude), "claudeonly__echo"));
    BOOST_TEST(anon.call_tool("far__echo").at("error").at("message").as_string().find("no server named") != std::string::npos);
    BOOST_TEST(anon.call_tool("claudeonly__echo").at("error").at("message").as_string().find("no server named") !=
               std::string::npos);
    BOOST_TEST(spawned("here"));  // the marker works
    BOOST_TEST(spawned("claudeonly"));
    auto caps = rest(d, "GET", "/api/v1/mcp/servers/far/capabilities", "", 200);
    BOOST_TEST(caps.at("live").as_bool() == false);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BOOST_TEST(!spawned("far"));  // machine axis: never started, not even for a listing
    auto rows = invocations(d);
    BOOST_TEST(eventually([&] { return (rows = invocations(d)).size() == 2u; }));
    for (auto& r : rows) BOOST_TEST(r.at("outcome").as_string() == "unknown");
}
