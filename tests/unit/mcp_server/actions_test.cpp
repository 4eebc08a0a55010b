// Validation, name rules at create, status, and the `test` / `tools` actions.
#include <boost/test/unit_test.hpp>

#include "support.hpp"

using namespace mcps_test;

BOOST_AUTO_TEST_SUITE(actions)

BOOST_AUTO_TEST_CASE(kind_descriptor) {
    FakeHost host(coffer_plugin_entry_v1);
    auto& k = host.kind("mcp_server");
    BOOST_TEST(k.mcp != nullptr);  // provides_mcp
    auto schema = json::parse(std::string(k.schema_json.ptr, k.schema_json.len));
    BOOST_TEST(schema.at("properties").at("timeout_ms").at("default").as_int64() == 60000);
    BOOST_TEST(schema.at("properties").at("auto_enable_new").at("default").as_bool());
    auto actions = json::parse(std::string(k.actions_json.ptr, k.actions_json.len));
    BOOST_TEST(actions.as_array().size() == 4u);  // test, tools, login, login_complete
}

BOOST_AUTO_TEST_CASE(validation_and_names) {
    FakeHost host(coffer_plugin_entry_v1);
    auto both = host.validate("mcp_server", R"({"command":"x","url":"http://a/"})");
    BOOST_TEST(both.status == COFFER_E_INVALID);
    BOOST_TEST(host.validate("mcp_server", stdio_config()).ok());
    try {
        host.create("mcp_server", "a__b", stdio_config());
        BOOST_FAIL("a name with __ was accepted");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find("__") != std::string::npos);
    }
    BOOST_CHECK_THROW(host.create("mcp_server", std::string(40, 'n'), stdio_config()), std::runtime_error);
    BOOST_CHECK_THROW(host.create("mcp_server", "coffer", stdio_config()), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(test_action) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto r = host.action(inst, "test");
    BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    auto v = json::parse(r.json);
    BOOST_TEST(v.at("ok").as_bool());
    BOOST_TEST(v.at("protocol_version").as_string() == "2025-11-25");
    BOOST_TEST(v.at("server_info").at("name").as_string() == "coffer-test-upstream");
    BOOST_TEST(v.at("tools").as_array().size() == 14u);  // both pages
    BOOST_TEST(v.at("resources").as_array().size() == 2u);
    BOOST_TEST(v.at("prompts").at(0).as_string() == "greet");
    BOOST_TEST(v.at("error").is_null());
    BOOST_TEST(v.at("duration_ms").as_int64() >= 0);
    BOOST_TEST(status_of(host, inst).at("health").as_string() == "ok");
    BOOST_TEST(eventually([&] { return host.children().empty(); }));  // the probe's child is gone

    auto* bad = host.create("mcp_server", "bad", R"({"command":"coffer-no-such-runner-xyz"})");
    auto rb = host.action(bad, "test");
    BOOST_REQUIRE(rb.ok());
    auto vb = json::parse(rb.json);
    BOOST_TEST(!vb.at("ok").as_bool());
    BOOST_TEST(vb.at("error").as_string() == "runner not installed: coffer-no-such-runner-xyz");
    BOOST_TEST(vb.at("runner_not_installed").as_bool());

    auto args = host.action(inst, "test", R"({"bogus":1})");
    BOOST_TEST(args.status == COFFER_E_INVALID);
}

BOOST_AUTO_TEST_CASE(tools_action) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto r = host.action(inst, "tools");
    BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    auto v = json::parse(r.json);
    BOOST_TEST(v.at("count").as_int64() == 14);
    BOOST_TEST(v.at("tools").at(1).at("name").as_string() == "search");
    BOOST_TEST(v.at("tools").at(1).at("description").as_string() == "Searches the test corpus for a query");
    auto* down = host.create("mcp_server", "down", http_config("http://127.0.0.1:1/mcp", R"({"timeout_ms":2000})"));
    auto d = host.action(down, "tools");
    BOOST_TEST(d.status == COFFER_E_UNAVAILABLE);
    BOOST_TEST(d.message.find("cannot reach") != std::string::npos, d.message);
}

BOOST_AUTO_TEST_SUITE_END()
