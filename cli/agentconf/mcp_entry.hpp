// Coffer's MCP entry in an agent's own config: where each agent type keeps its user MCP
// servers, and the plans that add or remove the entry `coffer-mcp-shim --agent <name>`.
//   claude_code: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json — member mcpServers.<entry>
//                {"type":"stdio","command":…,"args":[…],"env":{}} (what `claude mcp add --scope
//                user` writes);
//   codex:       $CODEX_HOME/config.toml, else ~/.codex/config.toml — table [mcp_servers.<entry>]
//                with command and args (what `codex mcp add` writes).
// A plan is computed from what was read; apply() writes it with the checks of config_file.hpp.
#pragma once

#include "agentconf/config_file.hpp"
#include "core/result.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::agentconf {

enum class AgentType { claude_code, codex };

std::optional<AgentType> parse_agent_type(std::string_view name);
std::string_view to_string(AgentType type);

// Where the agents look: HOME, CODEX_HOME, CLAUDE_CONFIG_DIR (empty when unset).
struct AgentEnv {
    std::filesystem::path home;
    std::filesystem::path codex_home;
    std::filesystem::path claude_config_dir;
    static AgentEnv from_process();
};

std::filesystem::path config_path(AgentType type, const AgentEnv& env);
// The agent's own folder (~/.claude or $CLAUDE_CONFIG_DIR, ~/.codex or $CODEX_HOME).
std::filesystem::path config_dir(AgentType type, const AgentEnv& env);

struct McpEntry {
    std::string name = "coffer";    // the server's name in the agent's config
    std::string command;            // absolute path of coffer-mcp-shim
    std::vector<std::string> args;  // {"--agent", <agent name>}
};

struct Plan {
    AgentType type{};
    Snapshot before;
    std::string after;
    bool changed() const { return !before.exists ? !after.empty() : after != before.text; }
};

core::Result<Plan> plan_install(AgentType type, const AgentEnv& env, const McpEntry& entry);
core::Result<Plan> plan_uninstall(AgentType type, const AgentEnv& env, const std::string& name = "coffer");
// Writes a changed plan (nothing for an unchanged one). `before_commit` as in replace_config.
core::Result<void> apply(const Plan& plan, const std::function<void()>& before_commit = {});

// What the config holds for the entry now.
struct EntryState {
    std::filesystem::path path;
    bool config_exists = false;
    bool installed = false;
    std::string command;
    std::vector<std::string> args;
};
core::Result<EntryState> entry_state(AgentType type, const AgentEnv& env, const std::string& name = "coffer");

}  // namespace coffer::agentconf
