// The two stream parsers on the shapes the CLIs print (reference: Claude Code 2.1.x stream-json,
// Codex 0.16x exec --json), including lines they must ignore.
#define BOOST_TEST_MODULE unit_agent_drivers
#include <boost/test/unit_test.hpp>

#include "claude_parser.hpp"
#include "codex_parser.hpp"

namespace json = boost::json;

namespace {
std::vector<json::object> feed(coffer::agent::StreamParser& p, std::initializer_list<std::string_view> lines) {
    std::vector<json::object> out;
    for (auto l : lines) p.feed(l, out);
    return out;
}
std::vector<std::string> types(const std::vector<json::object>& evs) {
    std::vector<std::string> t;
    for (auto& e : evs) t.emplace_back(e.at("type").as_string());
    return t;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(claude)

BOOST_AUTO_TEST_CASE(a_turn_with_partial_messages_and_a_tool) {
    coffer::claude_code::ClaudeParser p;
    auto evs = feed(p, {
        R"({"type":"system","subtype":"init","session_id":"abc","cwd":"/w","model":"m","tools":[],"mcp_servers":[{"name":"coffer","status":"connected"}],"permissionMode":"default","claude_code_version":"2.1.197"})",
        R"({"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":"abc","uuid":"u"})",
        R"({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}})",
        R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}},"ttft_ms":12})",
        R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}})",
        R"({"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Hello"}],"usage":{}},"session_id":"abc","parent_tool_use_id":null})",
        R"({"type":"assistant","message":{"id":"msg_2","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__coffer__search","input":{"q":"x"}}]},"session_id":"abc"})",
        R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"found"}],"is_error":true}]}})",
        R"({"type":"result","subtype":"success","is_error":false,"result":"Hello","session_id":"abd","num_turns":1,"total_cost_usd":0.5,"usage":{"input_tokens":3,"output_tokens":4,"cache_read_input_tokens":1}})",
    });
    BOOST_TEST((types(evs) == std::vector<std::string>{"session", "text.delta", "text.delta", "message.completed", "tool.started",
                                                       "tool.completed", "session", "usage"}));
    BOOST_TEST(evs[0].at("agent_session_id").as_string() == "abc");
    BOOST_TEST(evs[1].at("item_id").as_string() == evs[3].at("item_id").as_string());  // stable item ids
    BOOST_TEST(evs[4].at("kind").as_string() == "mcp");
    BOOST_TEST(evs[5].at("ok").as_bool() == false);
    BOOST_TEST(evs[5].at("output_preview").as_string() == "found");
    BOOST_TEST(evs[6].at("agent_session_id").as_string() == "abd");  // the id may change: the newest wins
    BOOST_TEST(evs[7].at("output_tokens").as_int64() == 4);
    auto t = p.terminal();
    BOOST_REQUIRE(t.has_value());
    BOOST_TEST(t->at("status").as_string() == "ok");
    BOOST_TEST(t->at("final_text").as_string() == "Hello");
}

BOOST_AUTO_TEST_CASE(without_partial_messages_one_delta_per_text_block) {
    coffer::claude_code::ClaudeParser p;
    auto evs = feed(p, {R"({"type":"assistant","message":{"id":"m","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Hi"}]}})"});
    BOOST_TEST((types(evs) == std::vector<std::string>{"reasoning", "text.delta", "message.completed"}));
}

BOOST_AUTO_TEST_CASE(unknown_types_subtypes_and_bad_lines_are_tolerated) {
    coffer::claude_code::ClaudeParser p;
    auto evs = feed(p, {R"({"type":"tool_progress","x":1})", R"({"type":"system","subtype":"hook_started"})",
                        R"({"type":"auth_status"})", R"([1,2])", "not json", R"({"type":"assistant"})",
                        R"({"type":"control_response","response":{"subtype":"success","request_id":"r"}})"});
    BOOST_TEST((types(evs) == std::vector<std::string>{"warning", "warning"}));
    BOOST_TEST(p.ignored == 4u);
    BOOST_TEST(!p.terminal().has_value());
}

BOOST_AUTO_TEST_CASE(a_long_line_that_is_not_json_is_quoted_in_whole_characters) {
    coffer::claude_code::ClaudeParser p;
    std::string line = "x";
    for (int i = 0; i < 150; ++i) line += "\xC3\xA9";  // é: byte 200 falls inside one
    auto evs = feed(p, {line});
    BOOST_REQUIRE(evs.size() == 1u);
    std::string quoted(evs[0].at("line").as_string());
    BOOST_TEST(quoted.size() <= 200u + 3u);
    BOOST_TEST(quoted.rfind("\xE2\x80\xA6") == quoted.size() - 3);  // "…": it was cut
    BOOST_TEST(quoted.substr(0, quoted.size() - 3) == line.substr(0, 199));  // 1 + 99 × 2 bytes
}

BOOST_AUTO_TEST_CASE(an_error_result_and_one_without_result_text) {
    coffer::claude_code::ClaudeParser p;
    feed(p, {R"({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"partial"}]}})",
             R"({"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s"})"});
    auto t = p.terminal();
    BOOST_REQUIRE(t.has_value());
    BOOST_TEST(t->at("status").as_string() == "error");
    BOOST_TEST(t->at("final_text").as_string() == "partial");  // `result` may be absent after an interrupt
}

BOOST_AUTO_TEST_CASE(tool_kinds) {
    using coffer::claude_code::tool_kind;
    BOOST_TEST(tool_kind("Bash") == "command");
    BOOST_TEST(tool_kind("Edit") == "file_change");
    BOOST_TEST(tool_kind("mcp__a__b") == "mcp");
    BOOST_TEST(tool_kind("Frobnicate") == "other");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(codex)

BOOST_AUTO_TEST_CASE(the_reference_turn) {
    coffer::codex::CodexParser p;
    auto evs = feed(p, {
        R"({"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"})",
        R"({"type":"turn.started"})",
        R"({"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}})",
        R"({"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"docs\nsrc\n","exit_code":0,"status":"completed"}})",
        R"({"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"a","kind":"add"}],"status":"completed"}})",
        R"({"type":"error","message":"Reconnecting... 1/5"})",
        R"({"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Done."}})",
        R"({"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}})",
    });
    BOOST_TEST((types(evs) == std::vector<std::string>{"session", "tool.started", "tool.completed", "tool.started",
                                                       "tool.completed", "warning", "text.delta", "message.completed", "usage"}));
    BOOST_TEST(evs[0].at("agent_session_id").as_string() == "0199a213-81c0-7800-8aa1-bbab2a035a53");
    BOOST_TEST(evs[2].at("exit_code").as_int64() == 0);
    BOOST_TEST(evs[2].at("ok").as_bool());
    BOOST_TEST(evs[3].at("kind").as_string() == "file_change");  // completed-only items are announced too
    BOOST_TEST(evs[8].at("cumulative").as_bool());
    auto t = p.terminal();
    BOOST_REQUIRE(t.has_value());
    BOOST_TEST(t->at("status").as_string() == "ok");
    BOOST_TEST(t->at("final_text").as_string() == "Done.");
}

BOOST_AUTO_TEST_CASE(a_failed_turn_and_failed_command) {
    coffer::codex::CodexParser p;
    auto evs = feed(p, {
        R"({"type":"item.completed","item":{"id":"i","type":"command_execution","command":"false","aggregated_output":"","exit_code":1,"status":"failed"}})",
        R"({"type":"turn.failed","error":{"message":"stream disconnected"}})",
    });
    BOOST_TEST(evs.back().at("ok").as_bool() == false);
    BOOST_TEST(p.terminal()->at("status").as_string() == "error");
    BOOST_TEST(p.terminal()->at("error").as_string() == "stream disconnected");
}

BOOST_AUTO_TEST_CASE(unknown_items_and_types_are_ignored) {
    coffer::codex::CodexParser p;
    auto evs = feed(p, {R"({"type":"item.started","item":{"id":"x","type":"collab_thing"}})", R"({"type":"session.configured"})",
                        R"({"type":"item.completed","item":{"id":"r","type":"reasoning","text":"think"}})", "garbage"});
    BOOST_TEST((types(evs) == std::vector<std::string>{"reasoning", "warning"}));
    BOOST_TEST(p.ignored == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
