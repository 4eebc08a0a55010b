// Claude Code's `-p --output-format stream-json --verbose` stdout (one JSON object per line) read
// into the normalised agent events (docs/agents-and-chat.md). Unknown types, subtypes and fields
// are ignored: the format grows with every release.
#pragma once

#include <coffer/agent_runner.hpp>

#include <optional>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>

namespace coffer::claude_code {

class ClaudeParser : public agent::StreamParser {
public:
    void feed(std::string_view line, std::vector<boost::json::object>& out) override;
    std::optional<boost::json::object> terminal() const override { return terminal_; }

private:
    void system(const boost::json::object& o, std::vector<boost::json::object>& out);
    void stream_event(const boost::json::object& o, std::vector<boost::json::object>& out);
    void assistant(const boost::json::object& o, std::vector<boost::json::object>& out);
    void user(const boost::json::object& o, std::vector<boost::json::object>& out);
    void result(const boost::json::object& o, std::vector<boost::json::object>& out);
    void session(const boost::json::object& o, std::vector<boost::json::object>& out);

    std::string session_id_;
    std::string message_id_;                    // the message the partial stream events belong to
    std::set<std::string> streamed_;            // messages whose text came as deltas (partial messages on)
    std::map<std::string, std::deque<std::int64_t>> text_blocks_;  // message → indexes of its streamed text blocks
    std::string last_text_;
    std::optional<boost::json::object> terminal_;
};

// Tool kinds from Claude Code's tool names: Bash → command, Edit/Write → file_change, mcp__s__t → mcp, …
std::string tool_kind(std::string_view name);

}  // namespace coffer::claude_code
