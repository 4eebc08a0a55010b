// The codex driver: how Codex is called for one turn (the whole flag list is in argv()) and which
// parser reads its output.
#pragma once

#include <coffer/agent_driver.hpp>

namespace coffer::codex {

extern const char* const kSchemaText;

class CodexDriver : public agent::Driver {
public:
    std::string kind() const override { return "codex"; }
    std::string default_command() const override { return "codex"; }
    std::string schema() const override { return kSchemaText; }
    std::vector<std::string> argv(const std::string& program, const agent::DriverConfig& config,
                                  const agent::TurnRequest& turn) const override;
    std::unique_ptr<agent::StreamParser> parser() const override;
};

// A TOML string literal (for `-c key=value` overrides).
std::string toml_string(std::string_view s);

}  // namespace coffer::codex
