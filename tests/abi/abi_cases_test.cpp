// Each ABI case, loaded the way the daemon loads plugins (dlopen RTLD_NOW|RTLD_LOCAL, then the
// entry symbol), must break the contract in exactly the intended way — and only that way — and
// the good plugins must be good. This keeps the cases honest for the daemon's integration tests.
#define BOOST_TEST_MODULE abi_cases
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"

#include <coffer/abi.h>
#include <coffer/testing.hpp>

#include <boost/json.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fs = std::filesystem;
namespace json = boost::json;
using coffer::testing::FakeHost;
using coffer::testing::cstr;
using coffer::testing::view;

namespace {

const fs::path kDir = COFFER_TEST_PLUGIN_DIR;

std::string read(const fs::path& p) {
    std::ifstream in(p);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

json::object manifest(const std::string& name) {
    return json::parse(read(kDir / name / (name + ".plugin.json"))).as_object();
}

// Never dlclose (ABI v1 rule); a failed dlopen is a test failure with dlerror's text.
void* open_case(const std::string& name) {
    auto lib = kDir / name / ("lib" + name + ".so");
    void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    return h;
}

coffer_plugin_entry_fn entry_of(const std::string& name) {
    return reinterpret_cast<coffer_plugin_entry_fn>(dlsym(open_case(name), COFFER_PLUGIN_ENTRY_SYMBOL));
}

json::value parse(const std::string& s) { return json::parse(s); }

// The manifest agrees with the descriptor: name, ABI major, kinds.
void check_manifest_matches(const std::string& name, const coffer_plugin& p) {
    auto m = manifest(name);
    BOOST_TEST(m.at("name").as_string() == view(p.name));
    BOOST_TEST(m.at("library").as_string() == "lib" + name + ".so");
    BOOST_REQUIRE(m.at("kinds").as_array().size() == p.kind_count);
    for (size_t i = 0; i < p.kind_count; ++i) BOOST_TEST(m.at("kinds").at(i).as_string() == view(p.kinds[i]->name));
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_case_folder_holds_exactly_a_library_and_its_manifest) {
    for (std::string name : {"wrong_major", "missing_symbol", "bad_manifest", "init_fails", "throwing_hook",
                             "newer_minor", "test_kind", "c_kind", "mcp_v13"}) {
        std::set<std::string> files;
        for (auto& e : fs::directory_iterator(kDir / name)) files.insert(e.path().filename().string());
        BOOST_TEST((files == std::set<std::string>{"lib" + name + ".so", name + ".plugin.json"}), name);
    }
}

BOOST_AUTO_TEST_CASE(wrong_major_claims_major_2_in_manifest_and_descriptor) {
    BOOST_TEST(manifest("wrong_major").at("abi").at("major").as_int64() == 2);
    auto entry = entry_of("wrong_major");
    BOOST_REQUIRE(entry);
    const coffer_plugin* p = entry(COFFER_ABI_MAJOR, COFFER_ABI_MINOR);
    BOOST_REQUIRE(p);
    BOOST_TEST(p->abi_major == 2);
    BOOST_CHECK_THROW(FakeHost{entry}, std::runtime_error);  // "plugin ABI major mismatch"
}

BOOST_AUTO_TEST_CASE(missing_symbol_loads_but_has_no_v1_entry) {
    BOOST_TEST(manifest("missing_symbol").at("abi").at("major").as_int64() == 1);
    void* h = open_case("missing_symbol");
    BOOST_TEST(dlsym(h, COFFER_PLUGIN_ENTRY_SYMBOL) == nullptr);
    BOOST_TEST(dlsym(h, "coffer_plugin_entry") != nullptr);  // the near miss is there
}

BOOST_AUTO_TEST_CASE(bad_manifest_has_a_malformed_manifest_and_a_good_library) {
    boost::system::error_code ec;
    json::parse(read(kDir / "bad_manifest" / "bad_manifest.plugin.json"), ec);
    BOOST_TEST(ec.failed());
    auto entry = entry_of("bad_manifest");
    BOOST_REQUIRE(entry);
    coffer::test::TempDir dir("abi-bad-manifest");
    FakeHost host(entry, "{}", dir / "vault");
    BOOST_TEST(view(host.plugin().name) == "bad_manifest");
}

BOOST_AUTO_TEST_CASE(init_fails_fails_init_with_unavailable_and_a_message) {
    auto entry = entry_of("init_fails");
    BOOST_REQUIRE(entry);
    const coffer_plugin* p = entry(1, 0);
    BOOST_REQUIRE(p);
    check_manifest_matches("init_fails", *p);
    BOOST_CHECK_EXCEPTION(FakeHost{entry}, std::runtime_error, [](const std::runtime_error& e) {
        return std::string(e.what()).find("backing service unreachable") != std::string::npos;
    });
    // The raw outcome: status, message and details.
    coffer_host_api api{};
    api.struct_size = sizeof api;
    api.abi_major = COFFER_ABI_MAJOR;
    api.abi_minor = COFFER_ABI_MINOR;
    api.reply_error = [](coffer_reply* r, coffer_status st, coffer_str m, coffer_str d) {
        r->status = st;
        r->message.assign(view(m));
        r->details.assign(view(d));
    };
    coffer_reply r;
    void* ctx = nullptr;
    BOOST_TEST(p->init(&api, nullptr, cstr("{}"), &ctx, &r) == COFFER_E_UNAVAILABLE);
    BOOST_TEST(r.message == "init_fails: backing service unreachable (on purpose)");
    BOOST_TEST(parse(r.details).at("retry_after_s") == 30);
}

BOOST_AUTO_TEST_CASE(newer_minor_needs_a_future_host_minor) {
    auto entry = entry_of("newer_minor");
    BOOST_REQUIRE(entry);
    const coffer_plugin* p = entry(COFFER_ABI_MAJOR, COFFER_ABI_MINOR);
    BOOST_REQUIRE(p);
    BOOST_TEST(p->abi_major == COFFER_ABI_MAJOR);
    BOOST_TEST(p->abi_minor == 0);
    BOOST_TEST(p->min_host_minor == 99);
    BOOST_TEST(p->min_host_minor > COFFER_ABI_MINOR);  // refused by this host
    check_manifest_matches("newer_minor", *p);
}

BOOST_AUTO_TEST_CASE(throwing_hook_lets_exceptions_cross_the_boundary) {
    auto entry = entry_of("throwing_hook");
    BOOST_REQUIRE(entry);
    coffer::test::TempDir dir("abi-throwing");
    FakeHost host(entry, "{}", dir / "vault");
    check_manifest_matches("throwing_hook", host.plugin());
    // The fake host does not catch (the daemon must): the exceptions reach this test.
    BOOST_CHECK_THROW(host.validate("throwing_hook", "{}"), std::runtime_error);
    BOOST_TEST(host.validate("throwing_hook", R"({"pass_validation":true})").ok());
    auto* i = host.create("throwing_hook", "t", "{}");
    BOOST_CHECK_THROW(host.action(i, "boom"), std::runtime_error);
    BOOST_CHECK_THROW(host.action(i, "boom_int"), int);
    BOOST_TEST(host.action(i, "ok").ok());
    BOOST_TEST(host.status(i).ok());
    BOOST_TEST(host.update(i, R"({"throw_in_status":true})").ok());
    BOOST_CHECK_THROW(host.status(i), std::runtime_error);
    BOOST_CHECK_THROW(host.create("throwing_hook", "t2", R"({"throw_in_create":true})"), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(mcp_v13_ships_a_1_3_provider_table_with_a_trap_past_its_end) {
    auto entry = entry_of("mcp_v13");
    BOOST_REQUIRE(entry);
    BOOST_TEST(manifest("mcp_v13").at("abi").at("minor").as_int64() == 3);
    coffer::test::TempDir dir("abi-mcp-v13");
    FakeHost host(entry, "{}", dir / "vault");
    auto& p = host.plugin();
    check_manifest_matches("mcp_v13", p);
    BOOST_TEST(p.abi_minor == 3);
    BOOST_TEST(p.min_host_minor <= COFFER_ABI_MINOR);  // this host loads it
    const coffer_mcp_provider* mcp = host.kind("mcp_v13").mcp;
    BOOST_REQUIRE(mcp);
    BOOST_TEST(mcp->struct_size == offsetof(coffer_mcp_provider, notify));  // the 1.3 size
    BOOST_TEST(mcp->notify != nullptr);  // the trap, past struct_size
    auto* i = host.create("mcp_v13", "v", "{}");
    auto s = host.mcp_open(i);
    BOOST_TEST(!host.mcp_notify(*s, "notifications/roots/list_changed"));  // read no further than struct_size
    auto text = [&] { return parse(host.mcp_request(*s, "tools/call", R"({"name":"trapped"})").json).at("content").at(0).at("text"); };
    BOOST_TEST(text() == "trapped 0");
    BOOST_TEST(parse(host.mcp_request(*s, "tools/list").json).at("tools").at(0).at("name") == "trapped");
    BOOST_TEST(!host.mcp_request(*s, "prompts/list").details.empty());
    // The trap counts, so "trapped 0" from the daemon means it was never called.
    mcp->notify(s->state, cstr("notifications/roots/list_changed"), cstr("{}"));
    BOOST_TEST(text() == "trapped 1");
}

BOOST_AUTO_TEST_SUITE(test_kind)

BOOST_AUTO_TEST_CASE(is_a_complete_good_plugin) {
    auto entry = entry_of("test_kind");
    BOOST_REQUIRE(entry);
    BOOST_TEST(entry(2, 0) == nullptr);
    coffer::test::TempDir dir("abi-test-kind");
    FakeHost host(entry, "{}", dir / "vault");
    auto& p = host.plugin();
    check_manifest_matches("test_kind", p);
    BOOST_TEST(p.abi_major == 1);
    BOOST_TEST(p.min_host_minor == 0);
    auto schema = parse(std::string(view(host.kind("test_kind").schema_json)));
    BOOST_TEST(schema.at("required") == parse(R"(["value"])"));
    BOOST_TEST(schema.at("properties").at("value").at("maximum") == 1000000);
    BOOST_TEST(schema.at("properties").at("label").at("maxLength") == 64);
    BOOST_TEST(schema.at("properties").at("tags").at("items").at("type") == "string");
    BOOST_TEST(schema.at("additionalProperties") == false);
    std::set<std::string> actions;
    auto declared = parse(std::string(view(host.kind("test_kind").actions_json)));
    for (auto& a : declared.as_array())
        actions.insert(std::string(a.at("name").as_string()));
    for (auto a : {"echo", "fail", "throw"}) BOOST_TEST(actions.count(a) == 1u, a);
}

BOOST_AUTO_TEST_CASE(validator_wants_even_values_for_label_even) {
    coffer::test::TempDir dir("abi-test-kind-validate");
    FakeHost host(entry_of("test_kind"), "{}", dir / "vault");
    BOOST_TEST(host.validate("test_kind", R"({"value":4,"label":"even"})").ok());
    BOOST_TEST(host.validate("test_kind", R"({"value":3,"label":"odd"})").ok());
    BOOST_TEST(host.validate("test_kind", R"({"value":3})").ok());
    auto r = host.validate("test_kind", R"({"value":3,"label":"even"})");
    BOOST_TEST(r.status == COFFER_E_INVALID);
    auto errors = parse(r.details).at("errors").as_array();
    BOOST_REQUIRE(errors.size() == 1u);
    BOOST_TEST(errors[0].at("pointer") == "/value");
}

BOOST_AUTO_TEST_CASE(actions_and_status) {
    coffer::test::TempDir dir("abi-test-kind-actions");
    FakeHost host(entry_of("test_kind"), "{}", dir / "vault");
    auto* i = host.create("test_kind", "t1", R"({"value":4,"label":"even"})");
    auto echo = host.action(i, "echo", R"({"x":[1,2,3]})");
    BOOST_TEST(echo.ok());
    BOOST_TEST(parse(echo.json) == parse(R"({"echo":{"x":[1,2,3]}})"));

    auto fail = host.action(i, "fail");
    BOOST_TEST(fail.status == COFFER_E_UNAVAILABLE);
    BOOST_TEST(fail.message == "asked to fail");

    auto thrown = host.action(i, "throw");  // caught by the wrapper inside the plugin
    BOOST_TEST(thrown.status == COFFER_E_INTERNAL);
    BOOST_TEST(thrown.message.find("thrown on request") != std::string::npos);

    BOOST_TEST(host.action(i, "nope").status == COFFER_E_UNSUPPORTED);
    BOOST_TEST(parse(host.status(i).json) == parse(R"({"health":"ok","value":4})"));
    BOOST_TEST(host.update(i, R"({"value":8})").ok());
    BOOST_TEST(parse(host.status(i).json) == parse(R"({"health":"ok","value":8})"));

    BOOST_TEST(host.start(i).ok());
    BOOST_TEST(host.stop(i).ok());
    auto info = parse(host.action(i, "info").json);
    BOOST_TEST(info.at("name") == "t1");
    BOOST_TEST(info.at("started") == 1);
    BOOST_TEST(info.at("stopped") == 1);

    auto svc = host.action(i, "services", R"({"n":1})");
    BOOST_REQUIRE(svc.ok());
    BOOST_TEST(parse(svc.json).at("emitted") == true);
    BOOST_REQUIRE(host.events().size() == 1u);
    BOOST_TEST(host.events()[0].topic == "test_kind.poked");
    BOOST_REQUIRE(host.audits().size() == 1u);
    BOOST_TEST(host.audits()[0].target == "test_kind:t1");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(c_kind)

BOOST_AUTO_TEST_CASE(counts_from_c) {
    auto entry = entry_of("c_kind");
    BOOST_REQUIRE(entry);
    BOOST_TEST(entry(2, 0) == nullptr);
    coffer::test::TempDir dir("abi-c-kind");
    FakeHost host(entry, "{}", dir / "vault");
    check_manifest_matches("c_kind", host.plugin());
    BOOST_REQUIRE(!host.logs().empty());
    BOOST_TEST(host.logs()[0].message == "c_kind ready");

    auto* c = host.create("c_counter", "n", "{}");
    BOOST_TEST(parse(host.action(c, "increment", "{}").json) == parse(R"({"count":1})"));
    BOOST_TEST(parse(host.action(c, "increment", "{}").json) == parse(R"({"count":2})"));
    BOOST_TEST(parse(host.action(c, "increment", R"({"by":40})").json) == parse(R"({"count":42})"));
    BOOST_TEST(parse(host.status(c).json) == parse(R"({"health":"ok","count":42,"step":1})"));
    auto r = host.action(c, "decrement");
    BOOST_TEST(r.status == COFFER_E_UNSUPPORTED);
    BOOST_TEST(r.message.find("increment") != std::string::npos);

    auto* d = host.create("c_counter", "m", R"({"start":10,"step":5})");
    BOOST_TEST(parse(host.action(d, "increment", "{}").json) == parse(R"({"count":15})"));
    BOOST_TEST(host.update(d, R"({"step":7})").ok());
    BOOST_TEST(parse(host.action(d, "increment").json) == parse(R"({"count":22})"));
    host.destroy(d);
}

BOOST_AUTO_TEST_CASE(validates_from_c_with_a_pointer) {
    coffer::test::TempDir dir("abi-c-kind-validate");
    FakeHost host(entry_of("c_kind"), "{}", dir / "vault");
    BOOST_TEST(host.validate("c_counter", R"({"start":10,"step":5})").ok());
    BOOST_TEST(host.validate("c_counter", "{}").ok());
    auto r = host.validate("c_counter", R"({"start":11,"step":5})");
    BOOST_TEST(r.status == COFFER_E_INVALID);
    BOOST_TEST(r.message == "config is invalid");
    BOOST_TEST(parse(r.details).at("errors").at(0).at("pointer") == "/start");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(wrapper_plugins_in_one_process_stay_apart) {
    // Three wrapper-based libraries in one process: each entry returns its own descriptor (their
    // per-library state must not be merged by the dynamic linker).
    std::set<std::string> names;
    for (std::string n : {"bad_manifest", "init_fails", "test_kind"}) {
        auto* p = entry_of(n)(1, 0);
        BOOST_REQUIRE(p);
        names.insert(std::string(view(p->name)));
    }
    BOOST_TEST((names == std::set<std::string>{"bad_manifest", "init_fails", "test_kind"}));
}
