// sdk.hpp seen from the C side: the descriptor the COFFER_PLUGIN macro builds, exceptions turned
// into error replies, validation pointers, action argument parsing and instance lifetimes.
#define BOOST_TEST_MODULE sdk
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"

#include "probe_plugin.hpp"

#include <coffer/sdk.hpp>
#include <coffer/testing.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

namespace json = boost::json;
using coffer::testing::FakeHost;
using coffer::testing::Result;

namespace {

json::value parse(const std::string& s) { return json::parse(s); }

std::string_view sv(coffer_str s) { return coffer::sdk::to_view(s); }

}  // namespace

BOOST_AUTO_TEST_SUITE(descriptor)

BOOST_AUTO_TEST_CASE(entry_builds_a_complete_descriptor) {
    const coffer_plugin* p = coffer_plugin_entry_v1(COFFER_ABI_MAJOR, COFFER_ABI_MINOR);
    BOOST_REQUIRE(p);
    BOOST_TEST(p->struct_size == sizeof(coffer_plugin));
    BOOST_TEST(p->abi_major == COFFER_ABI_MAJOR);
    BOOST_TEST(p->abi_minor == COFFER_ABI_MINOR);
    BOOST_TEST(p->min_host_minor == 0);
    BOOST_TEST(sv(p->name) == "probe_plugin");
    BOOST_TEST(sv(p->version) == "0.3.1");
    BOOST_TEST(p->init != nullptr);
    BOOST_TEST(p->shutdown != nullptr);
    BOOST_REQUIRE(p->kind_count == 2u);

    const coffer_kind* k = p->kinds[0];
    BOOST_TEST(k->struct_size == sizeof(coffer_kind));
    BOOST_TEST(sv(k->name) == "probe");
    BOOST_TEST(parse(std::string(sv(k->schema_json))).at("type") == "object");
    auto actions = parse(std::string(sv(k->actions_json))).as_array();
    BOOST_REQUIRE(actions.size() == 6u);
    BOOST_TEST(actions[0].at("name") == "echo");
    BOOST_TEST(actions[0].at("description") == "returns its arguments");
    for (auto fn : {(void*)k->validate, (void*)k->create, (void*)k->update, (void*)k->start, (void*)k->stop,
                    (void*)k->status, (void*)k->action, (void*)k->remove, (void*)k->destroy})
        BOOST_TEST(fn != nullptr);

    BOOST_TEST(sv(p->kinds[1]->name) == "probe_quiet");
    BOOST_TEST(sv(p->kinds[1]->actions_json) == "[]");
}

BOOST_AUTO_TEST_CASE(entry_is_idempotent_and_accepts_newer_host_minors) {
    auto* a = coffer_plugin_entry_v1(1, 0);
    auto* b = coffer_plugin_entry_v1(1, 9);
    BOOST_TEST(a != nullptr);
    BOOST_TEST(a == b);
}

BOOST_AUTO_TEST_CASE(entry_returns_null_for_another_host_major) {
    BOOST_TEST(coffer_plugin_entry_v1(2, 0) == nullptr);
    BOOST_TEST(coffer_plugin_entry_v1(0, 7) == nullptr);
    BOOST_TEST(coffer_plugin_entry_v1(COFFER_ABI_MAJOR + 1, COFFER_ABI_MINOR) == nullptr);
    // and the refusal leaves the good descriptor alone
    BOOST_TEST(coffer_plugin_entry_v1(1, 0) != nullptr);
}

BOOST_AUTO_TEST_CASE(hooks_work_through_a_copied_kind_descriptor) {
    // A host may copy min(struct_size, sizeof) bytes of a kind into its own struct; the wrapper
    // finds its state through kind_data, not through the descriptor's address.
    FakeHost host(coffer_plugin_entry_v1);
    coffer_kind copy{};
    const coffer_kind& orig = host.kind("probe");
    std::memcpy(&copy, &orig, std::min<size_t>(orig.struct_size, sizeof copy));
    coffer_reply r;
    auto cfg = std::string(R"({"level":0})");
    auto st = copy.validate(nullptr, &copy, coffer::testing::cstr(cfg), &r);
    BOOST_TEST(st == COFFER_E_INVALID);
    BOOST_TEST(r.details.find("/level") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(init_and_shutdown)

BOOST_AUTO_TEST_CASE(init_and_shutdown_are_called_once_per_host) {
    int inits = probe::counters().inits, shutdowns = probe::counters().shutdowns;
    {
        FakeHost host(coffer_plugin_entry_v1, R"({"anything":1})");
        BOOST_TEST(probe::counters().inits == inits + 1);
        BOOST_TEST(probe::counters().shutdowns == shutdowns);
    }
    BOOST_TEST(probe::counters().shutdowns == shutdowns + 1);
}

BOOST_AUTO_TEST_CASE(init_error_reaches_the_host) {
    BOOST_CHECK_EXCEPTION(FakeHost(coffer_plugin_entry_v1, R"({"fail_init":true})"), std::runtime_error,
                          [](const std::runtime_error& e) {
                              return std::string(e.what()).find("init refused on purpose") != std::string::npos;
                          });
    // called directly: the status is the Error's own
    auto* p = coffer_plugin_entry_v1(1, 0);
    coffer_host_api api{};
    api.struct_size = sizeof api;
    api.abi_major = 1;
    api.reply_error = [](coffer_reply* r, coffer_status st, coffer_str m, coffer_str d) {
        r->status = st;
        r->message.assign(coffer::sdk::to_view(m));
        r->details.assign(coffer::sdk::to_view(d));
    };
    coffer_reply r;
    void* ctx = nullptr;
    std::string cfg = R"({"fail_init":true})";
    BOOST_TEST(p->init(&api, nullptr, coffer::testing::cstr(cfg), &ctx, &r) == COFFER_E_UNAVAILABLE);
    BOOST_TEST(r.status == COFFER_E_UNAVAILABLE);
    BOOST_TEST(r.message == "init refused on purpose");
    BOOST_TEST(r.details.empty());
}

BOOST_AUTO_TEST_CASE(init_rejects_a_config_that_is_not_json) {
    BOOST_CHECK_EXCEPTION(FakeHost(coffer_plugin_entry_v1, "{not json"), std::runtime_error,
                          [](const std::runtime_error& e) {
                              return std::string(e.what()).find("plugin config is not JSON") != std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(empty_init_config_means_empty_object) {
    BOOST_CHECK_NO_THROW(FakeHost(coffer_plugin_entry_v1, ""));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(validation)

BOOST_AUTO_TEST_CASE(valid_config_passes) {
    FakeHost host(coffer_plugin_entry_v1);
    auto r = host.validate("probe", R"({"level":12,"mode":"b"})");
    BOOST_TEST(r.ok());
    BOOST_TEST(r.message.empty());
    BOOST_TEST(r.details.empty());
}

BOOST_AUTO_TEST_CASE(errors_carry_json_pointers) {
    FakeHost host(coffer_plugin_entry_v1);
    auto r = host.validate("probe", R"({"level":0,"mode":"b"})");
    BOOST_TEST(r.status == COFFER_E_INVALID);
    BOOST_TEST(r.message == "config is invalid");
    auto errors = parse(r.details).at("errors").as_array();
    BOOST_REQUIRE(errors.size() == 2u);
    BOOST_TEST(errors[0].at("pointer") == "/level");
    BOOST_TEST(errors[0].at("message") == "must be greater than 0");
    BOOST_TEST(errors[1].at("pointer") == "/mode");
    BOOST_TEST(errors[1].at("message") == "mode \"b\" needs level >= 10");
}

BOOST_AUTO_TEST_CASE(config_that_is_not_an_object_is_invalid) {
    FakeHost host(coffer_plugin_entry_v1);
    for (auto bad : {"[1,2]", "42", "\"x\"", "{broken", ""}) {
        auto r = host.validate("probe", bad);
        BOOST_TEST(r.status == COFFER_E_INVALID, "config " << bad);
        BOOST_TEST(r.message == "config must be a JSON object");
    }
}

BOOST_AUTO_TEST_CASE(a_throwing_validator_becomes_internal) {
    FakeHost host(coffer_plugin_entry_v1);
    auto r = host.validate("probe", R"({"throw_in_validate":true})");
    BOOST_TEST(r.status == COFFER_E_INTERNAL);
    BOOST_TEST(r.message == "validator blew up");
    BOOST_TEST(r.details.empty());
}

BOOST_AUTO_TEST_CASE(default_validator_accepts_everything) {
    FakeHost host(coffer_plugin_entry_v1);
    BOOST_TEST(host.validate("probe_quiet", R"({"whatever":[1,2,3]})").ok());
}

BOOST_AUTO_TEST_CASE(validation_collector) {
    coffer::sdk::Validation v;
    BOOST_TEST(v.ok());
    v.fail("/a/0", "bad");
    BOOST_TEST(!v.ok());
    BOOST_TEST(json::serialize(v.errors()) == R"([{"pointer":"/a/0","message":"bad"}])");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(actions)

BOOST_AUTO_TEST_CASE(args_reach_the_instance_as_an_object) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    auto r = host.action(i, "echo", R"({"who":"Ada","n":[1,2],"nested":{"x":null}})");
    BOOST_TEST(r.ok());
    BOOST_TEST(parse(r.json) == parse(R"({"args":{"who":"Ada","n":[1,2],"nested":{"x":null}}})"));
}

BOOST_AUTO_TEST_CASE(empty_args_text_means_empty_object) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    auto r = host.action(i, "echo", "");
    BOOST_TEST(r.ok());
    BOOST_TEST(parse(r.json) == parse(R"({"args":{}})"));
}

BOOST_AUTO_TEST_CASE(args_that_are_not_an_object_are_invalid) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    for (auto bad : {"[1]", "null", "{\"unterminated\":", "7"}) {
        auto r = host.action(i, "echo", bad);
        BOOST_TEST(r.status == COFFER_E_INVALID, "args " << bad);
        BOOST_TEST(r.message == "action arguments must be a JSON object");
        BOOST_TEST(r.json.empty());
    }
}

BOOST_AUTO_TEST_CASE(sdk_error_keeps_status_message_and_details) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    auto r = host.action(i, "fail_error", R"({"which":"left"})");
    BOOST_TEST(r.status == COFFER_E_CONFLICT);
    BOOST_TEST(r.message == "already there");
    BOOST_TEST(parse(r.details) == parse(R"({"which":"left"})"));
    BOOST_TEST(r.json.empty());
}

BOOST_AUTO_TEST_CASE(std_exception_becomes_internal_with_its_message) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    auto r = host.action(i, "fail_std");
    BOOST_TEST(r.status == COFFER_E_INTERNAL);
    BOOST_TEST(r.message == "std failure");
    BOOST_TEST(r.details.empty());
}

BOOST_AUTO_TEST_CASE(non_exception_throw_becomes_internal) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    auto r = host.action(i, "fail_other");
    BOOST_TEST(r.status == COFFER_E_INTERNAL);
    BOOST_TEST(r.message == "unknown exception in plugin");
}

BOOST_AUTO_TEST_CASE(unknown_action_is_unsupported) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    auto r = host.action(i, "frobnicate");
    BOOST_TEST(r.status == COFFER_E_UNSUPPORTED);
    BOOST_TEST(r.message == "unknown action: frobnicate");
    auto* q = host.create("probe_quiet", "q1", "{}");
    BOOST_TEST(host.action(q, "anything").status == COFFER_E_UNSUPPORTED);
}

BOOST_AUTO_TEST_CASE(the_plugin_survives_a_throw_and_keeps_working) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "p1", R"({"level":1})");
    BOOST_TEST(host.action(i, "fail_std").status == COFFER_E_INTERNAL);
    BOOST_TEST(host.action(i, "echo", R"({"again":true})").ok());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lifecycle)

BOOST_AUTO_TEST_CASE(create_passes_the_resource_info) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "alpha", R"({"level":3})", false);
    auto r = host.action(i, "info");
    BOOST_REQUIRE(r.ok());
    auto info = parse(r.json);
    BOOST_TEST(info.at("uid") == "test-alpha");
    BOOST_TEST(info.at("kind") == "probe");
    BOOST_TEST(info.at("name") == "alpha");
    BOOST_TEST(info.at("enabled") == false);
    BOOST_TEST(info.at("config") == parse(R"({"level":3})"));
}

BOOST_AUTO_TEST_CASE(create_failure_is_reported_and_leaks_nothing) {
    int live = probe::counters().live;
    FakeHost host(coffer_plugin_entry_v1);
    BOOST_CHECK_EXCEPTION(host.create("probe", "boom", R"({"level":1,"explode":true})"), std::runtime_error,
                          [](const std::runtime_error& e) {
                              return std::string(e.what()).find("cannot create: exploded") != std::string::npos;
                          });
    BOOST_TEST(probe::counters().live == live);

    // directly through the ABI: status, message, and *out left alone
    const coffer_kind& k = host.kind("probe");
    coffer_reply r;
    coffer_instance* out = nullptr;
    std::string res = R"({"uid":"u","kind":"probe","name":"n","config":{"explode":true}})";
    BOOST_TEST(k.create(nullptr, &k, coffer::testing::cstr(res), &out, &r) == COFFER_E_UNAVAILABLE);
    BOOST_TEST(out == nullptr);
    BOOST_TEST(r.message == "cannot create: exploded");
    std::string not_obj = "[]";
    BOOST_TEST(k.create(nullptr, &k, coffer::testing::cstr(not_obj), &out, &r) == COFFER_E_INVALID);
    BOOST_TEST(r.message == "resource must be a JSON object");
}

BOOST_AUTO_TEST_CASE(instances_are_destroyed) {
    auto& c = probe::counters();
    int live = c.live, destroyed = c.destroyed;
    {
        FakeHost host(coffer_plugin_entry_v1);
        auto* a = host.create("probe", "a", R"({"level":1})");
        host.create("probe", "b", R"({"level":1})");
        host.create("probe", "c", R"({"level":1})");
        BOOST_TEST(c.live == live + 3);
        host.destroy(a);
        BOOST_TEST(c.live == live + 2);
        BOOST_TEST(c.destroyed == destroyed + 1);
    }
    // the fake host destroys what is still alive, as the daemon does at shutdown
    BOOST_TEST(c.live == live);
    BOOST_TEST(c.destroyed == destroyed + 3);
}

BOOST_AUTO_TEST_CASE(start_stop_remove_status) {
    auto& c = probe::counters();
    int starts = c.starts, stops = c.stops, removes = c.removes;
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "s1", R"({"level":1})");
    BOOST_TEST(host.start(i).ok());
    BOOST_TEST(host.stop(i).ok());
    BOOST_TEST(host.remove(i).ok());
    BOOST_TEST(c.starts == starts + 1);
    BOOST_TEST(c.stops == stops + 1);
    BOOST_TEST(c.removes == removes + 1);
    auto st = host.status(i);
    BOOST_TEST(st.ok());
    BOOST_TEST(parse(st.json) == parse(R"({"health":"ok","name":"s1"})"));

    auto* q = host.create("probe_quiet", "q", "{}");
    BOOST_TEST(parse(host.status(q).json) == parse("{}"));
    BOOST_TEST(host.start(q).ok());
    BOOST_TEST(host.stop(q).ok());
    BOOST_TEST(host.remove(q).ok());
}

BOOST_AUTO_TEST_CASE(update_replaces_the_config_or_reports_why_not) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* i = host.create("probe", "u1", R"({"level":1})");
    BOOST_TEST(host.update(i, R"({"level":5})").ok());
    BOOST_TEST(parse(host.action(i, "info").json).at("config") == parse(R"({"level":5})"));

    auto r = host.update(i, R"({"reject_update":true})");
    BOOST_TEST(r.status == COFFER_E_CONFLICT);
    BOOST_TEST(r.message == "update refused");
    BOOST_TEST(host.update(i, "[]").status == COFFER_E_INVALID);
    BOOST_TEST(parse(host.action(i, "info").json).at("config") == parse(R"({"level":5})"));

    auto* q = host.create("probe_quiet", "q", R"({"a":1})");
    BOOST_TEST(host.update(q, R"({"a":2})").ok());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(host_services)

BOOST_AUTO_TEST_CASE(every_service_reaches_the_fake_host) {
    coffer::test::TempDir dir("sdk-services");
    auto vault = dir / "vault";
    FakeHost host(coffer_plugin_entry_v1, "{}", vault);
    auto* i = host.create("probe", "svc", R"({"level":1})");
    auto r = host.action(i, "services");
    BOOST_REQUIRE(r.ok());
    auto out = parse(r.json);
    BOOST_TEST(out.at("vault_dir").as_string() == vault.string());
    BOOST_TEST(out.at("data_dir").as_string() == (vault / "data").string());
    BOOST_TEST(std::filesystem::is_directory(vault / "data"));
    BOOST_TEST(out.at("emitted") == true);
    BOOST_TEST(out.at("audited") == true);

    BOOST_REQUIRE(host.logs().size() == 2u);
    BOOST_TEST(host.logs()[0].level == COFFER_LOG_INFO);
    BOOST_TEST(host.logs()[0].message == "probe says hi");
    BOOST_TEST(host.logs()[1].level == COFFER_LOG_WARN);
    BOOST_REQUIRE(host.events().size() == 1u);
    BOOST_TEST(host.events()[0].topic == "probe.poked");
    BOOST_TEST(parse(host.events()[0].json) == parse(R"({"name":"svc"})"));
    BOOST_REQUIRE(host.audits().size() == 1u);
    BOOST_TEST(host.audits()[0].type == "probe_poked");
    BOOST_TEST(host.audits()[0].target == "probe:svc");
    std::filesystem::remove_all(vault);
}

BOOST_AUTO_TEST_SUITE_END()
