// Unit tests of the greeter kind, through the SDK's fake host: the plugin is compiled into this
// test and driven only through the C ABI, exactly as the daemon drives libhello_kind.so.
#define BOOST_TEST_MODULE hello_kind
#include <boost/test/unit_test.hpp>

#include <chrono>

#include "../src/greeter.hpp"

#include <coffer/testing.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <string>

// Defined by COFFER_PLUGIN in src/plugin.cpp.
extern "C" const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor);

namespace json = boost::json;
using coffer::testing::FakeHost;

namespace {

// Each test gets its own empty vault, so state files never leak between tests.
struct Vault {
    std::filesystem::path dir;
    explicit Vault(const std::string& tag)
        : dir(std::filesystem::temp_directory_path() / ("hello-kind-test-" + tag)) {
        std::filesystem::remove_all(dir);
    }
    ~Vault() { std::filesystem::remove_all(dir); }
};

json::value parse(const std::string& s) { return json::parse(s); }

// The first validation error of a result, as {pointer, message}.
json::value first_error(const coffer::testing::Result& r) { return parse(r.details).at("errors").at(0); }

}  // namespace

BOOST_AUTO_TEST_SUITE(descriptor)

BOOST_AUTO_TEST_CASE(declares_one_kind_with_schema_and_actions) {
    Vault v("descriptor");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto& p = host.plugin();
    BOOST_TEST(coffer::testing::view(p.name) == "hello_kind");
    BOOST_TEST(coffer::testing::view(p.version) == "1.0.0");
    BOOST_REQUIRE(p.kind_count == 1u);
    auto& k = host.kind("greeter");
    auto schema = parse(std::string(coffer::testing::view(k.schema_json)));
    BOOST_TEST(schema.at("required") == parse(R"(["language"])"));
    BOOST_TEST(schema.at("additionalProperties") == false);
    auto actions = parse(std::string(coffer::testing::view(k.actions_json))).as_array();
    BOOST_REQUIRE(actions.size() == 3u);
    BOOST_TEST(actions[0].at("name") == "greet");
    BOOST_TEST(actions[1].at("name") == "reset");
    BOOST_TEST(actions[2].at("name") == "remind");
}

BOOST_AUTO_TEST_CASE(refuses_a_host_of_another_major) {
    BOOST_TEST(coffer_plugin_entry_v1(2, 0) == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(validation)

BOOST_AUTO_TEST_CASE(accepts_reasonable_configs) {
    Vault v("valid");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    for (auto cfg : {R"({"language":"en"})", R"({"language":"ja","repeat":3})",
                     R"({"language":"fr","greeting":"Salut","punctuation":"?","repeat":5,"shout":true})"})
        BOOST_TEST(host.validate("greeter", cfg).ok(), cfg);
}

BOOST_AUTO_TEST_CASE(shouting_in_japanese_is_refused_at_shout) {
    Vault v("ja-shout");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto r = host.validate("greeter", R"({"language":"ja","shout":true})");
    BOOST_TEST(r.status == COFFER_E_INVALID);
    BOOST_TEST(r.message == "config is invalid");
    BOOST_TEST(first_error(r).at("pointer") == "/shout");
}

BOOST_AUTO_TEST_CASE(too_long_a_greeting_run_is_refused_at_repeat) {
    Vault v("run");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    // 20 characters × 3 + 2 spaces = 62 > 60
    auto r = host.validate("greeter", R"({"language":"en","greeting":"Greetings and salute","repeat":3})");
    BOOST_TEST(r.status == COFFER_E_INVALID);
    auto e = first_error(r);
    BOOST_TEST(e.at("pointer") == "/repeat");
    BOOST_TEST(std::string(e.at("message").as_string()).find("62 characters") != std::string::npos);
    // the same greeting twice fits
    BOOST_TEST(host.validate("greeter", R"({"language":"en","greeting":"Greetings and salute","repeat":2})").ok());
}

BOOST_AUTO_TEST_CASE(lengths_count_characters_not_bytes) {
    BOOST_TEST(hello::utf8_length("こんにちは") == 5u);
    BOOST_TEST(hello::utf8_length("Zoë") == 3u);
    Vault v("utf8");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    // 13 kana × 5 + 4 spaces = 69 characters (but 199 bytes) → refused; × 4 + 3 = 55 → fine
    std::string word = "おはようございますみなさん";
    BOOST_TEST(hello::utf8_length(word) == 13u);
    BOOST_TEST(host.validate("greeter", R"({"language":"ja","greeting":")" + word + R"(","repeat":5})").status ==
               COFFER_E_INVALID);
    BOOST_TEST(host.validate("greeter", R"({"language":"ja","greeting":")" + word + R"(","repeat":4})").ok());
}

BOOST_AUTO_TEST_CASE(reports_every_problem_at_once) {
    Vault v("both");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto r = host.validate("greeter", R"({"language":"ja","shout":true,"greeting":"ABCDEFGHIJKLMNOPQRSTU","repeat":5})");
    auto errors = parse(r.details).at("errors").as_array();
    BOOST_REQUIRE(errors.size() == 2u);
    BOOST_TEST(errors[0].at("pointer") == "/shout");
    BOOST_TEST(errors[1].at("pointer") == "/repeat");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(rendering)

BOOST_AUTO_TEST_CASE(renders_each_language) {
    auto say = [](const char* cfg, const char* who) {
        return hello::render(hello::Style::from(json::parse(cfg).as_object()), who);
    };
    BOOST_TEST(say(R"({"language":"en"})", "Ada") == "Hello, Ada!");
    BOOST_TEST(say(R"({"language":"fr","punctuation":"."})", "Ada") == "Bonjour, Ada.");
    BOOST_TEST(say(R"({"language":"de","repeat":2})", "Ada") == "Hallo Hallo, Ada!");
    BOOST_TEST(say(R"({"language":"es"})", "Ada") == "¡Hola, Ada!");
    BOOST_TEST(say(R"({"language":"es","punctuation":"?"})", "Ada") == "¿Hola, Ada?");
    BOOST_TEST(say(R"({"language":"ja"})", "Ada") == "こんにちは、Adaさん!");
    BOOST_TEST(say(R"({"language":"en","greeting":"Howdy","shout":true})", "Zoë") == "HOWDY, ZOë!");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(actions)

BOOST_AUTO_TEST_CASE(greet_returns_the_message_and_counts) {
    Vault v("greet");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto* g = host.create("greeter", "g1", R"({"language":"en"})");
    auto r = host.action(g, "greet", R"({"who":"Ada"})");
    BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    BOOST_TEST(parse(r.json) == parse(R"({"message":"Hello, Ada!","language":"en","count":1})"));
    r = host.action(g, "greet", "{}");
    BOOST_TEST(parse(r.json) == parse(R"({"message":"Hello, world!","language":"en","count":2})"));

    BOOST_REQUIRE(host.events().size() == 2u);
    BOOST_TEST(host.events()[0].topic == "greeter.greeted");
    BOOST_TEST(parse(host.events()[0].json) == parse(R"({"resource":"g1","who":"Ada","count":1})"));
}

BOOST_AUTO_TEST_CASE(greet_checks_its_arguments) {
    Vault v("args");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto* g = host.create("greeter", "g1", R"({"language":"en"})");
    struct Case {
        const char* args;
        const char* pointer;
    };
    for (auto c : {Case{R"({"who":42})", "/who"}, Case{R"({"who":""})", "/who"},
                   Case{R"({"who":"Ada","whom":"Bob"})", "/whom"}}) {
        auto r = host.action(g, "greet", c.args);
        BOOST_TEST(r.status == COFFER_E_INVALID, c.args);
        BOOST_TEST(r.message == "invalid arguments for greet");
        BOOST_TEST(first_error(r).at("pointer") == c.pointer, c.args);
    }
    std::string long_who(hello::kMaxWhoLength + 1, 'x');
    BOOST_TEST(host.action(g, "greet", R"({"who":")" + long_who + R"("})").status == COFFER_E_INVALID);
    BOOST_TEST(host.action(g, "greet", "[1]").status == COFFER_E_INVALID);  // not an object: the SDK says so
}

BOOST_AUTO_TEST_CASE(a_disabled_greeter_does_not_greet) {
    Vault v("disabled");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto* g = host.create("greeter", "quiet", R"({"language":"de"})", /*enabled=*/false);
    auto r = host.action(g, "greet", R"({"who":"Ada"})");
    BOOST_TEST(r.status == COFFER_E_UNAVAILABLE);
    BOOST_TEST(r.message.find("disabled") != std::string::npos);
    BOOST_TEST(parse(host.status(g).json).at("health") == "disabled");

    BOOST_TEST(host.start(g).ok());
    BOOST_TEST(parse(host.action(g, "greet", R"({"who":"Ada"})").json).at("message") == "Hallo, Ada!");
    BOOST_TEST(host.stop(g).ok());
    BOOST_TEST(host.action(g, "greet", "{}").status == COFFER_E_UNAVAILABLE);
}

// remind: the host's event loop (ABI 1.9), here the fake host's, turned by the test.
BOOST_AUTO_TEST_CASE(remind_greets_later_from_the_loop) {
    Vault v("remind");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    host.lend_loop();
    auto* g = host.create("greeter", "g1", R"({"language":"fr"})");
    auto r = host.action(g, "remind", R"({"who":"Ada"})");  // after_ms 0: a deferred call
    BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    BOOST_TEST(parse(r.json) == parse(R"({"scheduled":true,"after_ms":0})"));
    BOOST_TEST(host.events().empty());  // nothing happens until the loop turns
    BOOST_TEST(parse(host.status(g).json).at("reminders_pending") == 1);
    BOOST_TEST(host.turn_loop() == 1u);
    BOOST_REQUIRE(host.events().size() == 1u);
    BOOST_TEST(host.events()[0].topic == "greeter.reminded");
    BOOST_TEST(parse(host.events()[0].json) ==
               parse(R"({"resource":"g1","who":"Ada","message":"Bonjour, Ada!","count":1})"));

    auto t0 = std::chrono::steady_clock::now();
    BOOST_TEST(host.action(g, "remind", R"({"who":"Bob","after_ms":40})").ok());
    BOOST_TEST(host.turn_loop() == 0u);  // not yet due
    BOOST_TEST(host.turn_loop_until([&] { return host.events().size() == 2u; }));
    BOOST_TEST((std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(40)));
    auto st = parse(host.status(g).json);
    BOOST_TEST(st.at("reminders_sent") == 2);
    BOOST_TEST(st.at("reminders_pending") == 0);
    BOOST_TEST(host.loop_registrations() == 0u);
}

BOOST_AUTO_TEST_CASE(stopping_cancels_pending_reminders) {
    Vault v("remind-stop");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    host.lend_loop();
    auto* g = host.create("greeter", "g1", R"({"language":"en"})");
    BOOST_TEST(host.action(g, "remind", R"({"after_ms":60000})").ok());
    BOOST_TEST(host.action(g, "remind", "{}").ok());
    BOOST_TEST(host.loop_registrations() == 2u);
    BOOST_TEST(host.stop(g).ok());
    BOOST_TEST(host.loop_registrations() == 0u);  // both cancelled with the host
    BOOST_TEST(host.turn_loop() == 0u);
    BOOST_TEST(host.events().empty());
    BOOST_TEST(parse(host.status(g).json).at("reminders_pending") == 0);
    BOOST_TEST(host.action(g, "remind", "{}").status == COFFER_E_UNAVAILABLE);  // disabled
}

BOOST_AUTO_TEST_CASE(remind_checks_its_arguments_and_needs_a_loop) {
    Vault v("remind-args");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto* g = host.create("greeter", "g1", R"({"language":"en"})");
    auto r = host.action(g, "remind", "{}");
    BOOST_TEST(r.status == COFFER_E_UNSUPPORTED);  // a host older than ABI 1.9 lends no loop
    BOOST_TEST(r.message.find("event loop") != std::string::npos, r.message);
    host.lend_loop();
    struct Case {
        const char* args;
        const char* pointer;
    };
    for (auto c : {Case{R"({"after_ms":-1})", "/after_ms"}, Case{R"({"after_ms":600001})", "/after_ms"},
                   Case{R"({"after_ms":"soon"})", "/after_ms"}, Case{R"({"who":""})", "/who"},
                   Case{R"({"when":1})", "/when"}}) {
        auto bad = host.action(g, "remind", c.args);
        BOOST_TEST(bad.status == COFFER_E_INVALID, c.args);
        BOOST_TEST(first_error(bad).at("pointer") == c.pointer, c.args);
    }
    BOOST_TEST(host.loop_registrations() == 0u);  // nothing scheduled by a refused call
}

BOOST_AUTO_TEST_CASE(unknown_action_is_unsupported) {
    Vault v("unknown");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto* g = host.create("greeter", "g1", R"({"language":"en"})");
    auto r = host.action(g, "wave");
    BOOST_TEST(r.status == COFFER_E_UNSUPPORTED);
    BOOST_TEST(r.message == "unknown action: wave");
}

BOOST_AUTO_TEST_CASE(update_changes_the_language_and_keeps_the_count) {
    Vault v("update");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto* g = host.create("greeter", "g1", R"({"language":"en"})");
    host.action(g, "greet", R"({"who":"Ada"})");
    BOOST_TEST(host.update(g, R"({"language":"fr"})").ok());
    auto r = parse(host.action(g, "greet", R"({"who":"Ada"})").json);
    BOOST_TEST(r.at("message") == "Bonjour, Ada!");
    BOOST_TEST(r.at("count") == 2);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(status_and_state)

BOOST_AUTO_TEST_CASE(status_reports_the_counter) {
    Vault v("status");
    FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
    auto* g = host.create("greeter", "g1", R"({"language":"es"})");
    BOOST_TEST(parse(host.status(g).json) ==
               parse(R"({"health":"ok","enabled":true,"language":"es","greetings_sent":0,"last_greeted":null,
                       "reminders_pending":0,"reminders_sent":0})"));
    host.action(g, "greet", R"({"who":"Ada"})");
    BOOST_TEST(parse(host.status(g).json) ==
               parse(R"({"health":"ok","enabled":true,"language":"es","greetings_sent":1,"last_greeted":"Ada",
                       "reminders_pending":0,"reminders_sent":0})"));
    auto r = parse(host.action(g, "reset").json);
    BOOST_TEST(r == parse(R"({"greetings_sent":0,"previous":1})"));
    BOOST_TEST(parse(host.status(g).json).at("greetings_sent") == 0);
}

BOOST_AUTO_TEST_CASE(the_counter_survives_a_restart_and_dies_with_the_resource) {
    Vault v("persist");
    auto state = v.dir / "data" / "greeter" / "test-g1.json";  // FakeHost uid = "test-<name>"
    {
        FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);
        auto* g = host.create("greeter", "g1", R"({"language":"en"})");
        host.action(g, "greet", R"({"who":"Ada"})");
        host.action(g, "greet", R"({"who":"Grace"})");
    }
    BOOST_TEST(std::filesystem::exists(state));
    {
        FakeHost host(coffer_plugin_entry_v1, "{}", v.dir);  // "the daemon restarted"
        auto* g = host.create("greeter", "g1", R"({"language":"en"})");
        auto s = parse(host.status(g).json);
        BOOST_TEST(s.at("greetings_sent") == 2);
        BOOST_TEST(s.at("last_greeted") == "Grace");
        BOOST_TEST(host.stop(g).ok());
        BOOST_TEST(host.remove(g).ok());
    }
    BOOST_TEST(!std::filesystem::exists(state));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(plugin_config)

BOOST_AUTO_TEST_CASE(default_who_comes_from_the_plugin_config) {
    Vault v("default-who");
    FakeHost host(coffer_plugin_entry_v1, R"({"default_who":"team"})", v.dir);
    auto* g = host.create("greeter", "g1", R"({"language":"en"})");
    BOOST_TEST(parse(host.action(g, "greet").json).at("message") == "Hello, team!");
    BOOST_REQUIRE(!host.logs().empty());
    BOOST_TEST(host.logs()[0].message.find("\"team\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_bad_plugin_config_fails_init) {
    Vault v("bad-config");
    BOOST_CHECK_EXCEPTION(FakeHost(coffer_plugin_entry_v1, R"({"default_who":7})", v.dir), std::runtime_error,
                          [](const std::runtime_error& e) {
                              return std::string(e.what()).find("default_who") != std::string::npos;
                          });
}

BOOST_AUTO_TEST_SUITE_END()
