// Plugin loading against contract-breaking plugins (tests/abi): each is refused or contained
// with a clear reason, and the daemon keeps serving the good ones.
#define BOOST_TEST_MODULE plugins
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

#include <fstream>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {
json::object find_plugin(const json::value& list, const std::string& name) {
    for (auto& p : list.at("plugins").as_array())
        if (p.at("name").as_string() == name) return p.as_object();
    return {};
}
std::string reason(const json::object& p) {
    auto* e = p.if_contains("error");
    return e && e->is_string() ? std::string(e->as_string()) : std::string();
}
}  // namespace

BOOST_AUTO_TEST_CASE(broken_plugins_are_refused_with_reasons) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    install_test_plugins(d.vault(), {"test_kind", "wrong_major", "missing_symbol", "bad_manifest", "init_fails",
                                     "newer_minor", "throwing_hook", "c_kind"});
    // A library with no manifest at all.
    fs::copy_file(test_plugin_dir() / "missing_symbol" / "libmissing_symbol.so", d.vault() / "plugins" / "liborphan.so");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    int status = 0;
    auto list = d.call_json("GET", "/api/v1/plugins", "", &status);
    BOOST_REQUIRE(status == 200);

    auto good = find_plugin(list, "test_kind");
    BOOST_TEST(good.at("status").as_string() == "loaded");
    BOOST_TEST(good.at("abi").as_string() == "1.0");

    auto major = find_plugin(list, "wrong_major");
    BOOST_TEST(major.at("status").as_string() == "refused");
    BOOST_TEST(reason(major).find("ABI major 2") != std::string::npos, reason(major));

    auto missing = find_plugin(list, "missing_symbol");
    BOOST_TEST(missing.at("status").as_string() == "refused");
    BOOST_TEST(reason(missing).find("coffer_plugin_entry_v1") != std::string::npos, reason(missing));

    auto bad = find_plugin(list, "bad_manifest");
    BOOST_TEST(bad.at("status").as_string() == "refused");
    BOOST_TEST(reason(bad).find("malformed manifest") != std::string::npos, reason(bad));

    auto init = find_plugin(list, "init_fails");
    BOOST_TEST(init.at("status").as_string() == "refused");
    BOOST_TEST(reason(init).find("init failed") != std::string::npos, reason(init));

    auto newer = find_plugin(list, "newer_minor");
    BOOST_TEST(newer.at("status").as_string() == "refused");
    BOOST_TEST(reason(newer).find("1.99") != std::string::npos, reason(newer));

    auto orphan = find_plugin(list, "liborphan");
    BOOST_TEST(orphan.at("status").as_string() == "refused");
    BOOST_TEST(reason(orphan).find("no manifest") != std::string::npos, reason(orphan));

    auto c = find_plugin(list, "c_kind");
    BOOST_TEST(c.at("status").as_string() == "loaded", reason(c));

    // The good kinds work.
    BOOST_TEST(d.call("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"ok","config":{"value":2}})").status == 201);

    // Refusals are logged with the reason.
    std::ifstream in(d.vault() / "logs" / "daemon.log");
    std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    BOOST_TEST(log.find("plugin refused") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(throwing_hooks_are_contained) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    install_test_plugins(d.vault(), {"throwing_hook", "test_kind"});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    int status = 0;
    auto list = d.call_json("GET", "/api/v1/plugins", "", &status);
    auto p = find_plugin(list, "throwing_hook");
    BOOST_REQUIRE(p.at("status").as_string() == "loaded");
    auto kinds = p.at("kinds").as_array();
    BOOST_REQUIRE(!kinds.empty());
    std::string kind(kinds.at(0).as_string());

    auto r = d.call_json("POST", "/api/v1/resources", R"({"kind":")" + kind + R"(","name":"boom","config":{}})", &status);
    BOOST_TEST(status == 502, json::serialize(r));
    BOOST_TEST(r.at("error").at("code").as_string() == "PLUGIN_ERROR");
    BOOST_TEST(std::string(r.at("error").at("message").as_string()).find("threw") != std::string::npos);
    // Nothing persisted, daemon alive, other kinds fine.
    auto l = d.call_json("GET", "/api/v1/resources", "", &status);
    BOOST_TEST(l.at("resources").as_array().empty());
    BOOST_TEST(d.call("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"ok","config":{"value":2}})").status == 201);
}

BOOST_AUTO_TEST_CASE(c_plugin_action) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    install_test_plugins(d.vault(), {"c_kind"});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    int status = 0;
    auto kinds = d.call_json("GET", "/api/v1/kinds", "", &status);
    BOOST_REQUIRE(!kinds.at("kinds").as_array().empty());
    BOOST_TEST(kinds.at("kinds").at(0).at("kind").as_string() == "c_counter");
    auto c = d.call("POST", "/api/v1/resources", R"({"kind":"c_counter","name":"n","config":{}})");
    BOOST_TEST(c.status == 201, c.body);
    auto a1 = d.call_json("POST", "/api/v1/resources/c_counter/n/actions/increment", "{}", &status);
    BOOST_TEST(status == 200, json::serialize(a1));
    auto a2 = d.call_json("POST", "/api/v1/resources/c_counter/n/actions/increment", "{}", &status);
    BOOST_TEST(status == 200);
    BOOST_TEST(json::serialize(a1) != json::serialize(a2));
}
