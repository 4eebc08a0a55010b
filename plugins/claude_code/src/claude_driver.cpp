#include "claude_driver.hpp"

#include "claude_parser.hpp"

namespace coffer::claude_code {

// `claude -p --output-format stream-json --verbose --include-partial-messages [--resume ID]
// [--mcp-config FILE] [extra args] -- PROMPT`: the prompt after `--`, so one starting with '-' is
// not read as a flag; the session id of the previous turn resumes it (it may come back changed).
std::vector<std::string> ClaudeDriver::argv(const std::string& program, const agent::DriverConfig& config,
                                            const agent::TurnRequest& turn) const {
    std::vector<std::string> a{program, "-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages"};
    if (turn.resume_key) a.insert(a.end(), {"--resume", *turn.resume_key});
    if (turn.mcp_config_file) a.insert(a.end(), {"--mcp-config", *turn.mcp_config_file});
    a.insert(a.end(), config.args.begin(), config.args.end());
    a.insert(a.end(), {"--", turn.prompt});
    return a;
}

std::unique_ptr<agent::StreamParser> ClaudeDriver::parser() const { return std::make_unique<ClaudeParser>(); }

}  // namespace coffer::claude_code
