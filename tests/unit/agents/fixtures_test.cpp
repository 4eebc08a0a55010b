// Both parsers on what the real CLIs printed (tests/fixtures/agents, recorded from Claude Code and
// Codex against the local model stand-in; see tests/agents_standin/README.md).
#include <boost/test/unit_test.hpp>

#include "claude_parser.hpp"
#include "codex_parser.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct Parsed {
    std::vector<json::object> events;
    std::optional<json::object> terminal;
    std::size_t ignored = 0;
};

Parsed run(coffer::agent::StreamParser& p, const fs::path& file) {
    Parsed out;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) p.feed(line, out.events);
    out.terminal = p.terminal();
    out.ignored = p.ignored;
    return out;
}
Parsed claude(const std::string& name) {
    coffer::claude_code::ClaudeParser p;
    return run(p, fs::path(COFFER_AGENT_FIXTURES) / "claude_code" / (name + ".jsonl"));
}
Parsed codex(const std::string& name) {
    coffer::codex::CodexParser p;
    return run(p, fs::path(COFFER_AGENT_FIXTURES) / "codex" / (name + ".jsonl"));
}
std::vector<json::object> of(const Parsed& p, const std::string& type) {
    std::vector<json::object> out;
    for (auto& e : p.events)
        if (e.at("type").as_string() == type) out.push_back(e);
    return out;
}
// Each message's deltas add up to its completed text, under the same item id.
void deltas_match_messages(const Parsed& p) {
    std::map<std::string, std::string> streamed;
    for (auto& e : of(p, "text.delta")) streamed[std::string(e.at("item_id").as_string())] += e.at("text").as_string();
    auto done = of(p, "message.completed");
    BOOST_TEST(streamed.size() == done.size());
    for (auto& m : done) BOOST_TEST(streamed[std::string(m.at("item_id").as_string())] == m.at("text").as_string());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(recorded)

BOOST_AUTO_TEST_CASE(every_recording_parses_into_schema_events) {
    static const std::set<std::string> schema{"session", "text.delta", "reasoning", "tool.started", "tool.updated",
                                              "tool.completed", "message.completed", "usage", "warning"};
    for (auto* driver : {"claude_code", "codex"})
        for (auto& f : fs::directory_iterator(fs::path(COFFER_AGENT_FIXTURES) / driver)) {
            auto p = std::string(driver) == "codex" ? codex(f.path().stem().string()) : claude(f.path().stem().string());
            for (auto& e : p.events) BOOST_TEST(schema.count(std::string(e.at("type").as_string())) == 1u, f.path());
            BOOST_TEST(of(p, "session").size() >= 1u, f.path());
            deltas_match_messages(p);
        }
}

BOOST_AUTO_TEST_CASE(claude_code_mcp_tool_turn) {
    auto p = claude("mcp_tool");
    auto started = of(p, "tool.started");
    BOOST_REQUIRE(started.size() == 1u);
    BOOST_TEST(started[0].at("kind").as_string() == "mcp");
    BOOST_TEST(started[0].at("name").as_string() == "mcp__everything__echo");
    BOOST_TEST(started[0].at("input").at("message").as_string() == "ping from the stand-in");
    auto completed = of(p, "tool.completed");
    BOOST_REQUIRE(completed.size() == 1u);
    BOOST_TEST(completed[0].at("item_id") == started[0].at("item_id"));
    BOOST_TEST(completed[0].at("ok").as_bool());
    BOOST_TEST(of(p, "message.completed").size() == 2u);
    BOOST_REQUIRE(p.terminal.has_value());
    BOOST_TEST(p.terminal->at("status").as_string() == "ok");
    BOOST_TEST(p.ignored >= 1u);  // system/status
}

BOOST_AUTO_TEST_CASE(claude_code_interrupted_turn_has_no_result_text) {
    auto p = claude("interrupt");
    BOOST_REQUIRE(p.terminal.has_value());
    BOOST_TEST(p.terminal->at("status").as_string() == "error");  // the runner reports "interrupted": it sent the signal
    BOOST_TEST(p.terminal->at("final_text").as_string() == "");
}

BOOST_AUTO_TEST_CASE(claude_code_without_partial_messages) {
    auto p = claude("text");
    BOOST_TEST(of(p, "text.delta").size() == 1u);
    BOOST_TEST(p.terminal->at("status").as_string() == "ok");
}

BOOST_AUTO_TEST_CASE(codex_mcp_tool_turn) {
    auto p = codex("mcp_tool");
    auto started = of(p, "tool.started");
    BOOST_REQUIRE(started.size() == 1u);
    BOOST_TEST(started[0].at("kind").as_string() == "mcp");
    BOOST_TEST(started[0].at("name").as_string() == "everything/echo");
    auto completed = of(p, "tool.completed");
    BOOST_REQUIRE(completed.size() == 1u);
    BOOST_TEST(completed[0].at("ok").as_bool());
    BOOST_TEST(std::string(completed[0].at("output_preview").as_string()).find("Echo: ping from the stand-in") != std::string::npos);
    BOOST_TEST(of(p, "warning").size() == 1u);  // "Model metadata … not found": an error item, not fatal
    BOOST_TEST(p.terminal->at("final_text").as_string() == "The echo came back.");
}

BOOST_AUTO_TEST_CASE(codex_failures) {
    auto err = codex("api_error");
    BOOST_REQUIRE(err.terminal.has_value());
    BOOST_TEST(err.terminal->at("status").as_string() == "error");
    BOOST_TEST(std::string(err.terminal->at("error").as_string()).find("high demand") != std::string::npos);
    auto cut = codex("interrupt");  // nothing after turn.started: the runner fails (or interrupts) the turn
    BOOST_TEST(!cut.terminal.has_value());
}

BOOST_AUTO_TEST_SUITE_END()
