// The out-of-tree example plugin in an unmodified, installed daemon, driven through the CLI:
// create, invalid config refused with the pointer, duplicate refused, action, audit rows.
#define BOOST_TEST_MODULE example_hello_kind
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

#include <chrono>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {
const fs::path kPrefix = COFFER_EXAMPLE_PREFIX;

struct Vault {
    TempDir dir;
    fs::path vault = dir.path() / "vault";
    std::map<std::string, std::string> env{{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}};

    Vault() { install_test_plugins(vault, {"hello_kind"}); }
    ~Vault() { coffer({"daemon", "stop"}); }

    RunResult coffer(std::vector<std::string> args) {
        args.insert(args.begin(), (kPrefix / "bin" / "coffer").string());
        return run(args, env, std::chrono::seconds(30));
    }
    json::value coffer_json(std::vector<std::string> args, int expect_exit) {
        args.push_back("--json");
        auto r = coffer(args);
        BOOST_TEST(r.exit_code == expect_exit, "exit " << r.exit_code << " stdout " << r.out << " stderr " << r.err);
        return parse(r.out);
    }
};

std::vector<std::string> pointers(const json::value& v) {
    std::vector<std::string> out;
    for (auto& e : v.at("error").at("details").at("errors").as_array()) out.emplace_back(e.at("pointer").as_string());
    return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(installed_layout) {
    BOOST_TEST(fs::exists(kPrefix / "bin" / "coffer-daemon"));
    BOOST_TEST(fs::exists(kPrefix / "bin" / "coffer"));
    BOOST_TEST(fs::exists(kPrefix / "include" / "coffer" / "abi.h"));
    BOOST_TEST(fs::exists(kPrefix / "lib" / "cmake" / "CofferSdk" / "CofferSdkConfig.cmake"));
    BOOST_TEST(fs::exists(test_plugin_dir() / "hello_kind" / "libhello_kind.so"));
}

BOOST_AUTO_TEST_CASE(example_plugin_through_the_installed_cli) {
    Vault v;
    // The installed CLI spawns the installed daemon (detect-or-spawn), which loads the plugin.
    auto plugins = v.coffer_json({"plugin", "list"}, 0);
    bool loaded = false;
    for (auto& p : plugins.at("plugins").as_array())
        if (p.at("name").as_string() == "hello_kind") loaded = p.at("status").as_string() == "loaded";
    BOOST_REQUIRE(loaded);
    auto status = v.coffer_json({"daemon", "status"}, 0);
    BOOST_TEST(status.at("status").as_string() == "ready");

    auto created = v.coffer_json({"resource", "create", "greeter", "g1", "--config", R"({"language":"fr","repeat":2})"}, 0);
    BOOST_TEST(created.at("resource").at("name").as_string() == "g1");

    auto bad_enum = v.coffer_json({"resource", "create", "greeter", "g2", "--config", R"({"language":"xx"})"}, 1);
    BOOST_TEST(bad_enum.at("error").at("code").as_string() == "VALIDATION_FAILED");
    BOOST_TEST(pointers(bad_enum).at(0) == "/config/language");

    auto rule = v.coffer_json({"resource", "create", "greeter", "g3", "--config", R"({"language":"ja","shout":true})"}, 1);
    BOOST_TEST(pointers(rule).at(0) == "/config/shout");

    auto dup = v.coffer_json({"resource", "create", "greeter", "g1", "--config", R"({"language":"en"})"}, 1);
    BOOST_TEST(dup.at("error").at("code").as_string() == "CONFLICT");

    auto greet = v.coffer_json({"resource", "action", "greeter:g1", "greet", "--args", R"({"who":"Ada"})"}, 0);
    auto text = json::serialize(greet.at("result"));
    BOOST_TEST(text.find("Bonjour") != std::string::npos, text);
    BOOST_TEST(text.find("Ada") != std::string::npos, text);

    auto list = v.coffer_json({"resource", "list", "--kind", "greeter"}, 0);
    BOOST_TEST(list.at("resources").as_array().size() == 1u);

    auto audit = v.coffer_json({"audit", "--limit", "50"}, 0);
    int created_rows = 0, action_rows = 0;
    for (auto& e : audit.at("events").as_array()) {
        if (e.at("target").as_string() != "greeter:g1") continue;
        created_rows += e.at("event_type").as_string() == "resource_created";
        action_rows += e.at("event_type").as_string() == "resource_action";
        BOOST_TEST(e.at("actor").as_string() == "cli");
    }
    BOOST_TEST(created_rows == 1);
    BOOST_TEST(action_rows == 1);

    // remind: the out-of-tree plugin schedules on the daemon's lent loop (ABI 1.9); the greeting
    // arrives later, from the network thread, and the status counts it.
    auto remind = v.coffer_json({"resource", "action", "greeter:g1", "remind", "--args", R"({"who":"Lin","after_ms":50})"}, 0);
    BOOST_TEST(remind.at("result").at("scheduled").as_bool());
    bool sent = false;
    for (int i = 0; i < 100 && !sent; ++i) {
        auto st = v.coffer_json({"resource", "show", "greeter:g1"}, 0);
        auto& plugin = st.at("resource").at("status").at("plugin");
        sent = plugin.at("reminders_sent").as_int64() == 1 && plugin.at("reminders_pending").as_int64() == 0;
        if (!sent) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    BOOST_TEST(sent, "the reminder never fired on the daemon's loop");
}
