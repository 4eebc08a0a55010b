#include "codex_driver.hpp"

#include "codex_parser.hpp"

#include <cstdio>

namespace coffer::codex {

namespace json = boost::json;

std::string toml_string(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
        else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else out += static_cast<char>(c);
    }
    return out + "\"";
}

namespace {
// The turn's MCP servers ({"mcpServers":{name:{command,args,env}}}, Claude Code's shape) as
// Codex config overrides: -c mcp_servers.<name>.command="…" -c mcp_servers.<name>.args=[…].
void mcp_overrides(const json::object& config, std::vector<std::string>& a) {
    auto* servers = config.if_contains("mcpServers");
    if (!servers || !servers->is_object()) return;
    for (auto& [name, v] : servers->as_object()) {
        if (!v.is_object()) continue;
        auto& s = v.as_object();
        std::string key = "mcp_servers." + std::string(name);
        if (auto* c = s.if_contains("command"); c && c->is_string())
            a.insert(a.end(), {"-c", key + ".command=" + toml_string(c->as_string())});
        if (auto* args = s.if_contains("args"); args && args->is_array()) {
            std::string list = "[";
            for (auto& x : args->as_array())
                if (x.is_string()) list += (list.size() > 1 ? "," : "") + toml_string(x.as_string());
            a.insert(a.end(), {"-c", key + ".args=" + list + "]"});
        }
    }
}
}  // namespace

// `codex exec --json --skip-git-repo-check [-c mcp overrides] [extra args] [resume THREAD] PROMPT`.
// Flags are not remembered by a resumed thread, so every turn repeats them. The working
// directory is the child's cwd.
std::vector<std::string> CodexDriver::argv(const std::string& program, const agent::DriverConfig& config,
                                           const agent::TurnRequest& turn) const {
    std::vector<std::string> a{program, "exec", "--json", "--skip-git-repo-check"};
    mcp_overrides(turn.mcp_config, a);
    a.insert(a.end(), config.args.begin(), config.args.end());
    if (turn.resume_key) a.insert(a.end(), {"resume", *turn.resume_key});
    if (!turn.prompt.empty() && turn.prompt.front() == '-') a.push_back("--");
    a.push_back(turn.prompt);
    return a;
}

std::unique_ptr<agent::StreamParser> CodexDriver::parser() const { return std::make_unique<CodexParser>(); }

}  // namespace coffer::codex
