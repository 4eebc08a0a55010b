// Codex's `exec --json` stdout (JSONL: thread.started, turn.started, item.started|updated|completed,
// turn.completed|failed, error) read into the normalised agent events (docs/agents-and-chat.md).
// Codex prints no token deltas: an agent_message arrives whole and becomes one text.delta.
// Unknown types and item types are ignored.
#pragma once

#include <coffer/agent_runner.hpp>

#include <optional>
#include <set>
#include <string>

namespace coffer::codex {

class CodexParser : public agent::StreamParser {
public:
    void feed(std::string_view line, std::vector<boost::json::object>& out) override;
    std::optional<boost::json::object> terminal() const override { return terminal_; }

private:
    void item(const std::string& phase, const boost::json::object& item, std::vector<boost::json::object>& out);
    std::set<std::string> started_;  // tool items already announced
    std::string last_text_;
    std::optional<boost::json::object> terminal_;
};

}  // namespace coffer::codex
