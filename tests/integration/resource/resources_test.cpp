// The resource framework over REST with a real plugin (test_kind): lifecycle, validation with
// JSON pointers, conflicts, actions, audit, persistence across restarts, bad input.
#define BOOST_TEST_MODULE resources
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {
struct Fixture : StartedDaemon {
    Fixture() : StartedDaemon({"test_kind"}) {}
    json::value req(const std::string& m, const std::string& t, const std::string& b, int expect) {
        int status = 0;
        auto v = d.call_json(m, t, b, &status);
        BOOST_TEST(status == expect, m << " " << t << " -> " << status << " " << json::serialize(v));
        return v;
    }
    std::string code(const json::value& v) {
        auto* o = v.if_object();
        if (!o || !o->contains("error")) return "";
        return std::string(v.at("error").at("code").as_string());
    }
    std::vector<std::string> pointers(const json::value& v) {
        std::vector<std::string> out;
        for (auto& e : v.at("error").at("details").at("errors").as_array())
            out.emplace_back(e.at("pointer").as_string());
        return out;
    }
    std::size_t count(const std::string& kind = "test_kind") {
        return req("GET", "/api/v1/resources?kind=" + kind, "", 200).at("resources").as_array().size();
    }
};
}  // namespace

BOOST_FIXTURE_TEST_CASE(plugin_loaded_and_kind_listed, Fixture) {
    auto p = req("GET", "/api/v1/plugins", "", 200);
    bool loaded = false;
    for (auto& e : p.at("plugins").as_array())
        if (e.at("name").as_string() == "test_kind") loaded = e.at("status").as_string() == "loaded";
    BOOST_TEST(loaded);
    auto k = req("GET", "/api/v1/kinds", "", 200);
    bool has = false;
    for (auto& e : k.at("kinds").as_array())
        if (e.at("kind").as_string() == "test_kind") {
            has = true;
            BOOST_TEST(e.at("schema").at("type").as_string() == "object");
            BOOST_TEST(e.at("actions").as_array().size() >= 3u);
        }
    BOOST_TEST(has);
}

BOOST_FIXTURE_TEST_CASE(lifecycle_with_audit, Fixture) {
    auto c = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"t1","config":{"value":4,"label":"even"},"description":"first"})", 201);
    auto uid = std::string(c.at("resource").at("uid").as_string());
    BOOST_TEST(uid.size() == 36u);
    BOOST_TEST(c.at("resource").at("enabled").as_bool());
    BOOST_TEST(c.at("resource").at("scope").at(0).at("machine").as_string() == "*");

    auto s = req("GET", "/api/v1/resources/test_kind/t1", "", 200);
    BOOST_TEST(s.at("resource").at("config").at("value").as_int64() == 4);
    BOOST_TEST(s.at("resource").at("status").at("state").as_string() == "running");
    BOOST_TEST(s.at("resource").at("status").at("plugin").at("value").as_int64() == 4);

    auto u = req("PATCH", "/api/v1/resources/test_kind/t1", R"({"config":{"value":8},"description":"second"})", 200);
    BOOST_TEST(u.at("resource").at("uid").as_string() == uid);
    BOOST_TEST(u.at("resource").at("description").as_string() == "second");
    auto s2 = req("GET", "/api/v1/resources/test_kind/t1", "", 200);
    BOOST_TEST(s2.at("resource").at("status").at("plugin").at("value").as_int64() == 8);

    auto dis = req("POST", "/api/v1/resources/test_kind/t1/disable", "", 200);
    BOOST_TEST(!dis.at("resource").at("enabled").as_bool());
    BOOST_TEST(dis.at("resource").at("status").at("state").as_string() == "stopped");
    auto en = req("POST", "/api/v1/resources/test_kind/t1/enable", "", 200);
    BOOST_TEST(en.at("resource").at("enabled").as_bool());

    auto act = req("POST", "/api/v1/resources/test_kind/t1/actions/echo", R"({"x":[1,2,3]})", 200);
    BOOST_TEST(act.at("result").at("echo").at("x").as_array().size() == 3u);

    auto del = req("DELETE", "/api/v1/resources/test_kind/t1", "", 200);
    BOOST_TEST(del.at("deleted").at("uid").as_string() == uid);
    req("GET", "/api/v1/resources/test_kind/t1", "", 404);

    auto audit = req("GET", "/api/v1/audit?limit=20", "", 200);
    std::vector<std::string> types;
    for (auto& e : audit.at("events").as_array())
        if (e.at("target").as_string() == "test_kind:t1") {
            types.emplace_back(e.at("event_type").as_string());
            BOOST_TEST(e.at("actor").as_string() == "api");
        }
    std::vector<std::string> expect{"resource_deleted", "resource_action", "resource_enabled",
                                    "resource_disabled", "resource_updated", "resource_created"};
    BOOST_TEST(types == expect, boost::test_tools::per_element());
}

BOOST_FIXTURE_TEST_CASE(validation_errors_carry_pointers_and_change_nothing, Fixture) {
    auto bad_type = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"v","config":{"value":"four"}})", 400);
    BOOST_TEST(code(bad_type) == "VALIDATION_FAILED");
    BOOST_TEST(pointers(bad_type).at(0) == "/config/value");

    auto missing = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"v","config":{"label":"x"}})", 400);
    BOOST_TEST(pointers(missing).at(0) == "/config/value");

    auto extra = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"v","config":{"value":1,"bogus":1}})", 400);
    BOOST_TEST(pointers(extra).at(0) == "/config/bogus");

    auto range = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"v","config":{"value":-1}})", 400);
    BOOST_TEST(pointers(range).at(0) == "/config/value");

    // The plugin's own validator (value must be even when label is "even").
    auto rule = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"v","config":{"value":3,"label":"even"}})", 400);
    BOOST_TEST(code(rule) == "VALIDATION_FAILED");
    BOOST_TEST(pointers(rule).at(0) == "/config/value");

    auto bad_name = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"no spaces","config":{"value":1}})", 400);
    BOOST_TEST(pointers(bad_name).at(0) == "/name");

    auto bad_scope = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"v","config":{"value":1},"scope":[{"machine":"*"}]})", 400);
    BOOST_TEST(pointers(bad_scope).at(0) == "/scope/0/agents");

    BOOST_TEST(count() == 0u);
    auto audit = req("GET", "/api/v1/audit?limit=100", "", 200);
    for (auto& e : audit.at("events").as_array()) BOOST_TEST(e.at("event_type").as_string() != "resource_created");
}

BOOST_FIXTURE_TEST_CASE(duplicate_is_conflict, Fixture) {
    req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"dup","config":{"value":1}})", 201);
    auto again = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"dup","config":{"value":2}})", 409);
    BOOST_TEST(code(again) == "CONFLICT");
    auto s = req("GET", "/api/v1/resources/test_kind/dup", "", 200);
    BOOST_TEST(s.at("resource").at("config").at("value").as_int64() == 1);
}

BOOST_FIXTURE_TEST_CASE(update_with_invalid_config_keeps_old, Fixture) {
    req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"keep","config":{"value":10}})", 201);
    auto bad = req("PATCH", "/api/v1/resources/test_kind/keep", R"({"config":{"value":"x"}})", 400);
    BOOST_TEST(pointers(bad).at(0) == "/config/value");
    auto s = req("GET", "/api/v1/resources/test_kind/keep", "", 200);
    BOOST_TEST(s.at("resource").at("config").at("value").as_int64() == 10);
    BOOST_TEST(s.at("resource").at("status").at("plugin").at("value").as_int64() == 10);
    req("PATCH", "/api/v1/resources/test_kind/missing", R"({"config":{"value":2}})", 404);
}

BOOST_FIXTURE_TEST_CASE(actions_errors_and_containment, Fixture) {
    req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"a","config":{"value":1}})", 201);
    auto fail = req("POST", "/api/v1/resources/test_kind/a/actions/fail", "{}", 503);
    BOOST_TEST(code(fail) == "UNAVAILABLE");
    BOOST_TEST(std::string(fail.at("error").at("message").as_string()).find("asked to fail") != std::string::npos);
    auto thrown = req("POST", "/api/v1/resources/test_kind/a/actions/throw", "{}", 502);
    BOOST_TEST(code(thrown) == "PLUGIN_ERROR");
    auto unknown = req("POST", "/api/v1/resources/test_kind/a/actions/nope", "{}", 404);
    BOOST_TEST(std::string(unknown.at("error").at("message").as_string()).find("echo") != std::string::npos);
    auto bad_args = req("POST", "/api/v1/resources/test_kind/a/actions/echo", "[1]", 400);
    BOOST_TEST(code(bad_args) == "VALIDATION_FAILED");
    req("POST", "/api/v1/resources/test_kind/none/actions/echo", "{}", 404);
    req("GET", "/api/v1/daemon/status", "", 200);
}

BOOST_FIXTURE_TEST_CASE(bad_input_is_structured_and_harmless, Fixture) {
    req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"base","config":{"value":2}})", 201);
    auto malformed = req("POST", "/api/v1/resources", R"({"kind":"test_kind",)", 400);
    BOOST_TEST(code(malformed) == "BAD_REQUEST");
    auto not_object = req("POST", "/api/v1/resources", R"([1,2])", 400);
    BOOST_TEST(code(not_object) == "BAD_REQUEST");
    auto wrong_types = req("POST", "/api/v1/resources", R"({"kind":5,"name":"x","config":{}})", 400);
    BOOST_TEST(pointers(wrong_types).at(0) == "/kind");
    auto config_not_object = req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"x","config":"v"})", 400);
    BOOST_TEST(pointers(config_not_object).at(0) == "/config");
    auto unknown = req("POST", "/api/v1/resources", R"({"kind":"nosuch","name":"x","config":{}})", 400);
    BOOST_TEST(code(unknown) == "UNKNOWN_KIND");
    BOOST_TEST(std::string(unknown.at("error").at("message").as_string()).find("test_kind") != std::string::npos);
    auto empty = req("POST", "/api/v1/resources", "", 400);
    BOOST_TEST(code(empty) == "BAD_REQUEST");
    std::string deep(100000, '[');
    auto nested = req("POST", "/api/v1/resources", deep, 400);
    BOOST_TEST(code(nested) == "BAD_REQUEST");
    std::string invalid_utf8 = std::string(R"({"kind":"test_kind","name":"u","config":{"value":2,"label":")") + "\xff\xfe" + "\"}}";
    auto utf = req("POST", "/api/v1/resources", invalid_utf8, 400);
    BOOST_TEST(code(utf) == "BAD_REQUEST");

    // Oversized body (> 4 MiB) → 413 with the envelope.
    std::string big = R"({"kind":"test_kind","name":"big","config":{"value":2,"label":")" + std::string(5 * 1024 * 1024, 'x') + "\"}}";
    auto r = d.call("POST", "/api/v1/resources", big);
    BOOST_TEST(r.status == 413);
    BOOST_TEST(code(parse(r.body)) == "PAYLOAD_TOO_LARGE");
    BOOST_TEST(r.headers.count("x-coffer-trace") == 1u);

    // State unchanged, daemon alive.
    BOOST_TEST(count() == 1u);
    auto s = req("GET", "/api/v1/resources/test_kind/base", "", 200);
    BOOST_TEST(s.at("resource").at("config").at("value").as_int64() == 2);
}

BOOST_FIXTURE_TEST_CASE(resources_survive_restart_and_list_is_ordered, Fixture) {
    for (auto n : {"zeta", "alpha", "mid"})
        req("POST", "/api/v1/resources", std::string(R"({"kind":"test_kind","name":")") + n + R"(","config":{"value":6}})", 201);
    req("POST", "/api/v1/resources/test_kind/mid/disable", "", 200);
    BOOST_TEST(d.stop() == 0);
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto l = req("GET", "/api/v1/resources", "", 200);
    std::vector<std::string> names;
    for (auto& r : l.at("resources").as_array()) names.emplace_back(r.at("name").as_string());
    std::vector<std::string> expect{"alpha", "mid", "zeta"};
    BOOST_TEST(names == expect, boost::test_tools::per_element());
    auto mid = req("GET", "/api/v1/resources/test_kind/mid", "", 200);
    BOOST_TEST(!mid.at("resource").at("enabled").as_bool());
    BOOST_TEST(mid.at("resource").at("status").at("state").as_string() == "stopped");
    auto alpha = req("GET", "/api/v1/resources/test_kind/alpha", "", 200);
    BOOST_TEST(alpha.at("resource").at("status").at("state").as_string() == "running");
}

BOOST_FIXTURE_TEST_CASE(machine_scope_hides_and_never_starts, Fixture) {
    req("POST", "/api/v1/resources",
        R"({"kind":"test_kind","name":"elsewhere","config":{"value":2},"scope":[{"machine":"other-box","agents":["*"]}]})", 201);
    BOOST_TEST(count() == 0u);
    auto all = req("GET", "/api/v1/resources?all=true", "", 200);
    BOOST_TEST(all.at("resources").as_array().size() == 1u);
    auto s = req("GET", "/api/v1/resources/test_kind/elsewhere", "", 200);
    BOOST_TEST(s.at("resource").at("status").at("state").as_string() == "out_of_scope");
    auto act = req("POST", "/api/v1/resources/test_kind/elsewhere/actions/echo", "{}", 503);
    BOOST_TEST(code(act) == "UNAVAILABLE");
}

BOOST_FIXTURE_TEST_CASE(retention_policies, Fixture) {
    auto r = req("GET", "/api/v1/retention", "", 200);
    bool audit365 = false;
    for (auto& e : r.at("retention").as_array())
        if (e.at("table").as_string() == "audit") audit365 = e.at("days").as_int64() == 365;
    BOOST_TEST(audit365);
    auto set = req("PUT", "/api/v1/retention/audit", R"({"days":30})", 200);
    BOOST_TEST(set.at("retention").at("days").as_int64() == 30);
    req("PUT", "/api/v1/retention/audit", R"({"days":null})", 200);
    auto bad = req("PUT", "/api/v1/retention/audit", R"({"days":0})", 400);
    BOOST_TEST(code(bad) == "VALIDATION_FAILED");
    req("PUT", "/api/v1/retention/audit", R"({"days":"x"})", 400);
    req("PUT", "/api/v1/retention/nosuch", R"({"days":3})", 404);
    auto after = req("GET", "/api/v1/retention", "", 200);
    for (auto& e : after.at("retention").as_array())
        if (e.at("table").as_string() == "audit") BOOST_TEST(e.at("days").is_null());
    auto audit = req("GET", "/api/v1/audit?limit=5", "", 200);
    int changes = 0;
    for (auto& e : audit.at("events").as_array()) changes += e.at("event_type").as_string() == "retention_changed";
    BOOST_TEST(changes == 2);
    req("GET", "/api/v1/audit?limit=abc", "", 400);
    req("GET", "/api/v1/audit?limit=0", "", 400);
}

BOOST_FIXTURE_TEST_CASE(kind_level_actions, Fixture) {
    req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"k1","config":{"value":2}})", 201);
    auto k = req("GET", "/api/v1/kinds", "", 200);
    bool listed = false;
    for (auto& e : k.at("kinds").as_array())
        if (e.at("kind").as_string() == "test_kind") listed = e.at("kind_actions").at(0).at("name").as_string() == "stats";
    BOOST_TEST(listed);
    auto r = req("POST", "/api/v1/kinds/test_kind/actions/stats", R"({"q":1})", 200);
    BOOST_TEST(r.at("result").at("created").as_int64() >= 1);
    BOOST_TEST(r.at("result").at("args").at("q").as_int64() == 1);
    auto unknown = req("POST", "/api/v1/kinds/test_kind/actions/nope", "{}", 404);
    BOOST_TEST(std::string(unknown.at("error").at("message").as_string()).find("stats") != std::string::npos);
    auto nokind = req("POST", "/api/v1/kinds/nosuch/actions/stats", "{}", 400);
    BOOST_TEST(code(nokind) == "UNKNOWN_KIND");
    auto audit = req("GET", "/api/v1/audit?limit=5", "", 200);
    BOOST_TEST(audit.at("events").at(0).at("event_type").as_string() == "kind_action");
}
