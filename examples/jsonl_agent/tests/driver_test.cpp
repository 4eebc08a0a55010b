// The driver through the SDK's fake host, against a shell script that speaks the event schema.
#define BOOST_TEST_MODULE jsonl_agent
#include <boost/test/unit_test.hpp>

#include <coffer/testing.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>

extern "C" const coffer_plugin* coffer_plugin_entry_v1(uint16_t, uint16_t);

namespace fs = std::filesystem;
namespace json = boost::json;

BOOST_AUTO_TEST_CASE(a_scripted_agent_runs_one_turn) {
    auto dir = fs::temp_directory_path() / ("jsonl-agent-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto script = dir / "agent.sh";
    std::ofstream(script) << "#!/bin/sh\n"
                             "echo '{\"type\":\"session\",\"agent_session_id\":\"k1\"}'\n"
                             "echo '{\"type\":\"text.delta\",\"item_id\":\"a\",\"text\":\"hi\"}'\n"
                             "echo '{\"type\":\"something.new\"}'\n"
                             "echo '{\"type\":\"turn.completed\",\"status\":\"ok\",\"final_text\":\"hi\"}'\n";
    fs::permissions(script, fs::perms::owner_all);
    coffer::testing::FakeHost host(coffer_plugin_entry_v1, "{}", dir);
    auto* inst = host.create("jsonl_agent", "j", json::serialize(json::object{{"command", script.string()}}));
    auto [res, turn] = host.start_turn(inst, json::serialize(json::object{{"prompt", "hello"}, {"cwd", dir.string()}}));
    BOOST_REQUIRE(res.ok());
    BOOST_REQUIRE(turn->wait_done(std::chrono::seconds(10)));
    BOOST_REQUIRE(turn->events.size() == 3u);
    BOOST_TEST(json::parse(turn->events[1]).at("text").as_string() == "hi");
    BOOST_TEST(json::parse(turn->events[2]).at("status").as_string() == "ok");
    fs::remove_all(dir);
}
