// mcp_server resources in the real daemon (bundled plugin): create over REST, name and config
// validation with pointers and rollback, status while the upstream is down or missing, and the
// `test` / `tools` actions against coffer-test-upstream over stdio and Streamable HTTP.
#define BOOST_TEST_MODULE integration_mcp_server
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"
#include "support.hpp"

using namespace coffer::test;
namespace json = boost::json;

namespace {
struct Fixture : StartedDaemon {
    json::value req(const std::string& m, const std::string& t, const std::string& b, int expect) {
        int status = 0;
        auto v = d.call_json(m, t, b, &status);
        BOOST_TEST(status == expect, m << " " << t << " -> " << status << " " << json::serialize(v));
        return v;
    }
    json::value create(const std::string& name, const std::string& config, int expect = 201) {
        return req("POST", "/api/v1/resources",
                   R"({"kind":"mcp_server","name":")" + name + R"(","config":)" + config + "}", expect);
    }
    json::object plugin_status(const std::string& name) {
        auto v = req("GET", "/api/v1/resources/mcp_server/" + name, "", 200);
        return v.at("resource").at("status").at("plugin").as_object();
    }
    json::value action(const std::string& name, const std::string& a, int expect = 200) {
        return req("POST", "/api/v1/resources/mcp_server/" + name + "/actions/" + a, "{}", expect);
    }
};

std::vector<std::string> pointers(const json::value& v) {
    std::vector<std::string> out;
    try {
        for (auto& e : v.at("error").at("details").at("errors").as_array()) out.emplace_back(e.at("pointer").as_string());
    } catch (...) {
    }
    return out;
}
}  // namespace

BOOST_FIXTURE_TEST_CASE(kind_is_bundled, Fixture) {
    auto k = req("GET", "/api/v1/kinds", "", 200);
    bool found = false;
    for (auto& e : k.at("kinds").as_array())
        if (e.at("kind").as_string() == "mcp_server") {
            found = true;
            BOOST_TEST(e.at("actions").as_array().size() == 4u);  // test, tools, login, login_complete
            BOOST_TEST(e.at("schema").at("properties").as_object().contains("timeout_ms"));
        }
    BOOST_TEST(found, d.log());
}

BOOST_FIXTURE_TEST_CASE(stdio_server_lifecycle_and_test_action, Fixture) {
    auto c = create("up", mcps_test::stdio_config());
    BOOST_TEST(c.at("resource").at("enabled").as_bool());
    auto st = plugin_status("up");
    BOOST_TEST(st.at("health").as_string() == "unknown");  // nothing started yet (lazy)
    BOOST_TEST(st.at("transport").as_string() == "stdio");
    // The daemon lends the plugin its loop unless the environment asks for the plugin's own
    // thread (ctest runs this file both ways: integration_mcp_server_own_thread).
    const char* io = std::getenv("COFFER_MCP_SERVER_IO");
    bool own = io && std::string(io) == "thread";
    BOOST_TEST(st.at("io").as_string() == (own ? "own_thread" : "host_loop"));
    auto t = action("up", "test");
    auto& r = t.at("result");
    BOOST_TEST(r.at("ok").as_bool(), json::serialize(t));
    BOOST_TEST(r.at("protocol_version").as_string() == "2025-11-25");
    BOOST_TEST(r.at("server_info").at("name").as_string() == "coffer-test-upstream");
    BOOST_TEST(r.at("tools").as_array().size() == 14u);
    BOOST_TEST(r.at("resources").as_array().size() == 2u);
    BOOST_TEST(r.at("prompts").as_array().size() == 1u);
    BOOST_TEST(plugin_status("up").at("health").as_string() == "ok");
    auto tools = action("up", "tools");
    BOOST_TEST(tools.at("result").at("tools").at(0).at("name").as_string() == "echo");
    // The probe's child is gone: no upstream-pids/ entry left behind.
    BOOST_TEST(mcps_test::eventually([&] {
        auto p = d.vault() / "upstream-pids";
        return !std::filesystem::exists(p) || std::filesystem::is_empty(p);
    }));
    req("DELETE", "/api/v1/resources/mcp_server/up", "", 200);
}

BOOST_FIXTURE_TEST_CASE(names_and_configs_are_validated_and_nothing_persists, Fixture) {
    auto bad = create("a__b", mcps_test::stdio_config(), 400);
    BOOST_TEST(bad.at("error").at("code").as_string() == "VALIDATION_FAILED", json::serialize(bad));
    BOOST_TEST(pointers(bad) == std::vector<std::string>{"/name"}, json::serialize(bad));
    req("GET", "/api/v1/resources/mcp_server/a__b", "", 404);
    auto both = create("both", R"({"command":"x","url":"http://127.0.0.1/"})", 400);
    BOOST_TEST(!pointers(both).empty(), json::serialize(both));
    req("GET", "/api/v1/resources/mcp_server/both", "", 404);
    auto neither = create("neither", R"({"timeout_ms":1000})", 400);
    BOOST_TEST(!pointers(neither).empty(), json::serialize(neither));
    auto hdr = create("hdr", R"({"url":"http://127.0.0.1/mcp","headers":{"Mcp-Session-Id":"x"}})", 400);
    BOOST_TEST(pointers(hdr) == std::vector<std::string>{"/config/headers/Mcp-Session-Id"}, json::serialize(hdr));
}

BOOST_FIXTURE_TEST_CASE(registration_succeeds_while_the_upstream_is_missing_or_down, Fixture) {
    create("norunner", R"({"command":"coffer-no-such-runner-xyz","args":["-y","x"]})");
    auto st = plugin_status("norunner");
    BOOST_TEST(st.at("health").as_string() == "unhealthy");
    BOOST_TEST(st.at("runner_not_installed").as_bool());
    BOOST_TEST(st.at("last_error").as_string() == "runner not installed: coffer-no-such-runner-xyz");
    auto t = action("norunner", "test");
    BOOST_TEST(!t.at("result").at("ok").as_bool());
    BOOST_TEST(t.at("result").at("error").as_string() == "runner not installed: coffer-no-such-runner-xyz");

    create("down", R"({"url":"http://127.0.0.1:1/mcp","timeout_ms":2000})");
    BOOST_TEST(mcps_test::eventually([&] { return plugin_status("down").at("health").as_string() == "unhealthy"; }));
    auto td = action("down", "test");
    BOOST_TEST(!td.at("result").at("ok").as_bool());
    BOOST_TEST(td.at("result").at("error").as_string().find("cannot reach 127.0.0.1:1") != std::string::npos);
    BOOST_TEST(plugin_status("down").at("health").as_string() == "unhealthy");
    auto tools = action("down", "tools", 503);
    BOOST_TEST(tools.at("error").at("message").as_string().find("cannot reach") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(http_server_test_action, Fixture) {
    mcps_test::HttpUpstream up;
    create("web", mcps_test::http_config(up.url()));
    auto t = action("web", "test");
    BOOST_TEST(t.at("result").at("ok").as_bool(), json::serialize(t));
    BOOST_TEST(t.at("result").at("tools").as_array().size() == 14u);
    BOOST_TEST(plugin_status("web").at("transport").as_string() == "http");
    mcps_test::HttpUpstream legacy(true);
    create("old", mcps_test::http_config(legacy.url()));
    auto tl = action("old", "test");
    BOOST_TEST(tl.at("result").at("ok").as_bool(), json::serialize(tl));
}

BOOST_FIXTURE_TEST_CASE(an_unknown_credential_reference_fails_the_start_with_a_clear_status, Fixture) {
    create("cred", mcps_test::stdio_config({}, R"({"env":{"API_KEY":"credref:my-key"}})"));
    auto t = action("cred", "test");
    BOOST_TEST(!t.at("result").at("ok").as_bool());
    auto st = plugin_status("cred");
    BOOST_TEST(st.at("last_error").as_string().find("credential 'my-key' (env API_KEY) does not exist") != std::string::npos,
               json::serialize(st));
    BOOST_TEST(st.at("health").as_string() == "unhealthy");
}
