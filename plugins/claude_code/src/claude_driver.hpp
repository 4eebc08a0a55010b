// The claude_code driver: how Claude Code is called for one turn (the whole flag list is in
// argv()) and which parser reads its output.
#pragma once

#include <coffer/agent_driver.hpp>

namespace coffer::claude_code {

extern const char* const kSchemaText;

class ClaudeDriver : public agent::Driver {
public:
    std::string kind() const override { return "claude_code"; }
    std::string default_command() const override { return "claude"; }
    std::string schema() const override { return kSchemaText; }
    std::vector<std::string> argv(const std::string& program, const agent::DriverConfig& config,
                                  const agent::TurnRequest& turn) const override;
    std::unique_ptr<agent::StreamParser> parser() const override;
};

}  // namespace coffer::claude_code
