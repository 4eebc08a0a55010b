// The claude_code plugin through the SDK's fake host: a turn runs coffer-fake-agent as the leader
// of its own process group, recorded with child_started and forgotten when reaped; interrupt
// escalates to the whole group; a crash fails with the stderr tail; exactly one turn.completed.
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"

#include <coffer/testing.hpp>

#include <boost/json.hpp>

#include <signal.h>

#include <fstream>
#include <thread>

extern "C" const coffer_plugin* coffer_plugin_entry_v1(uint16_t, uint16_t);

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {
struct Env {
    coffer::test::TempDir dir;
    coffer::testing::FakeHost host{coffer_plugin_entry_v1, "{}", dir.path()};
    std::string log = (dir.path() / "runs.jsonl").string();
    coffer_instance* inst = host.create("claude_code", "cc",
                                        json::serialize(json::object{{"command", COFFER_FAKE_AGENT},
                                                                     {"interrupt_grace_ms", 200},
                                                                     {"env", json::object{{"FAKE_AGENT_LOG", log}}}}));
    std::string request(const std::string& prompt) {
        return json::serialize(json::object{{"turn_id", "t1"}, {"prompt", prompt}, {"cwd", dir.path().string()}, {"resume_key", nullptr}});
    }
    std::vector<json::object> events(coffer_turn& t) {
        std::lock_guard<std::mutex> g(t.mu);
        std::vector<json::object> out;
        for (auto& e : t.events) out.push_back(json::parse(e).as_object());
        return out;
    }
    json::object first_run() {
        std::ifstream in(log);
        std::string line;
        std::getline(in, line);
        return json::parse(line).as_object();
    }
};
}  // namespace

BOOST_AUTO_TEST_CASE(a_turn_runs_and_completes_once) {
    Env e;
    auto [res, turn] = e.host.start_turn(e.inst, e.request("hi tool"));
    BOOST_REQUIRE(res.ok());
    BOOST_REQUIRE(turn->wait_done(10s));
    auto evs = e.events(*turn);
    BOOST_TEST(evs.back().at("type").as_string() == "turn.completed");
    BOOST_TEST(evs.back().at("status").as_string() == "ok");
    BOOST_TEST(turn->completions == 1);
    BOOST_TEST(e.host.children().empty());  // reaped and forgotten before the terminal event
}

BOOST_AUTO_TEST_CASE(interrupt_reaches_the_whole_group) {
    Env e;
    auto [res, turn] = e.host.start_turn(e.inst, e.request("x hang=20000 child ignore-int"));
    BOOST_REQUIRE(res.ok());
    for (int i = 0; i < 500 && !std::filesystem::exists(e.log); ++i) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(50ms);
    auto run = e.first_run();
    auto pgid = static_cast<pid_t>(run.at("pgid").as_int64());
    BOOST_TEST(e.host.children().size() == 1u);
    e.host.interrupt_turn(e.inst, turn.get());
    BOOST_REQUIRE(turn->wait_done(10s));
    BOOST_TEST(e.events(*turn).back().at("status").as_string() == "interrupted");
    // The grandchild may linger as a zombie for its new parent to reap; it runs nothing.
    auto grandchild = run.at("grandchild").as_int64();
    for (int i = 0; i < 200 && ::kill(static_cast<pid_t>(grandchild), 0) == 0; ++i) {
        std::ifstream st("/proc/" + std::to_string(grandchild) + "/stat");
        std::string s;
        std::getline(st, s);
        if (s.find(") Z") != std::string::npos) break;
        std::this_thread::sleep_for(10ms);
    }
    BOOST_TEST(::kill(static_cast<pid_t>(pgid), 0) != 0);  // the leader is reaped
    BOOST_TEST(e.host.children().empty());
}

BOOST_AUTO_TEST_CASE(a_crash_fails_with_the_stderr_tail) {
    Env e;
    auto [res, turn] = e.host.start_turn(e.inst, e.request("please crash"));
    BOOST_REQUIRE(res.ok());
    BOOST_REQUIRE(turn->wait_done(10s));
    auto last = e.events(*turn).back();
    BOOST_TEST(last.at("status").as_string() == "error");
    BOOST_TEST(std::string(last.at("error").as_string()).find("fatal: the model backend crashed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(refusals_start_nothing_and_report_no_event) {
    Env e;
    auto [bad_cwd, t1] = e.host.start_turn(
        e.inst, json::serialize(json::object{{"prompt", "x"}, {"cwd", "/no/such/folder"}}));
    BOOST_TEST(bad_cwd.status == COFFER_E_INVALID);
    auto [no_prompt, t2] = e.host.start_turn(e.inst, json::serialize(json::object{{"prompt", ""}, {"cwd", "/"}}));
    BOOST_TEST(no_prompt.status == COFFER_E_INVALID);
    auto missing = e.host.create("claude_code", "gone", R"({"command":"/no/such/claude"})");
    auto [unavailable, t3] = e.host.start_turn(missing, e.request("x"));
    BOOST_TEST(unavailable.status == COFFER_E_UNAVAILABLE);
    BOOST_TEST(unavailable.message.find("/no/such/claude") != std::string::npos);
    for (auto* t : {t1.get(), t2.get(), t3.get()}) BOOST_TEST(t->events.empty());
    BOOST_TEST(e.host.children().empty());
}
