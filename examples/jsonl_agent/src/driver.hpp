// The jsonl_agent driver: an agent whose CLI already prints Coffer's normalised events
// (docs/agents-and-chat.md), one JSON object a line — so its parser only checks and forwards.
// Command line: `<command> [--resume KEY] [extra args] -- PROMPT`.
#pragma once

#include <coffer/agent_driver.hpp>

namespace jsonl_agent {

namespace json = boost::json;

inline constexpr const char* kSchema = R"({
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "command": {"type": "string", "minLength": 1},
    "env": {"type": "object", "additionalProperties": {"type": "string"}},
    "args": {"type": "array", "items": {"type": "string"}},
    "interrupt_grace_ms": {"type": "integer", "minimum": 0, "maximum": 60000}
  }
})";

class Parser : public coffer::agent::StreamParser {
public:
    void feed(std::string_view line, std::vector<json::object>& out) override {
        boost::system::error_code ec;
        auto v = json::parse(line, ec);
        auto* type = !ec && v.is_object() ? v.as_object().if_contains("type") : nullptr;
        if (!type || !type->is_string()) return ignore("(not an event)");
        std::string_view t = type->as_string();
        if (t == "turn.completed") {
            terminal_ = v.as_object();
            return;
        }
        static constexpr std::string_view known[] = {"session", "text.delta", "reasoning", "tool.started", "tool.updated",
                                                     "tool.completed", "message.completed", "usage", "warning"};
        for (auto k : known)
            if (t == k) return out.push_back(v.as_object());
        ignore(t);
    }
    std::optional<json::object> terminal() const override { return terminal_; }

private:
    std::optional<json::object> terminal_;
};

class Driver : public coffer::agent::Driver {
public:
    std::string kind() const override { return "jsonl_agent"; }
    std::string default_command() const override { return "jsonl-agent"; }
    std::string schema() const override { return kSchema; }
    std::vector<std::string> argv(const std::string& program, const coffer::agent::DriverConfig& config,
                                  const coffer::agent::TurnRequest& turn) const override {
        std::vector<std::string> a{program};
        if (turn.resume_key) a.insert(a.end(), {"--resume", *turn.resume_key});
        a.insert(a.end(), config.args.begin(), config.args.end());
        a.insert(a.end(), {"--", turn.prompt});
        return a;
    }
    std::unique_ptr<coffer::agent::StreamParser> parser() const override { return std::make_unique<Parser>(); }
};

}  // namespace jsonl_agent
