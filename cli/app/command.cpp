#include "app/command.hpp"

namespace coffer::cli {

const GroupDef* Registry::group(std::string_view name) const {
    for (const auto& g : groups_)
        if (g.name == name) return &g;
    return nullptr;
}

const CommandDef* Registry::command(std::string_view group, std::string_view name) const {
    for (const auto& c : commands_)
        if (c.group == group && c.name == name) return &c;
    return nullptr;
}

std::vector<const CommandDef*> Registry::commands_of(std::string_view group) const {
    std::vector<const CommandDef*> out;
    for (const auto& c : commands_)
        if (c.group == group) out.push_back(&c);
    return out;
}

bool Registry::has_subcommands(std::string_view group) const {
    for (const auto& c : commands_)
        if (c.group == group && !c.name.empty()) return true;
    return false;
}

Registry make_registry() {
    Registry r;
    register_daemon_commands(r);
    register_service_commands(r);
    register_console_commands(r);
    register_plugin_commands(r);
    register_resource_commands(r);
    register_mcp_commands(r);
    register_skill_commands(r);
    register_kb_commands(r);
    register_memory_commands(r);
    register_credential_commands(r);
    register_agent_commands(r);
    register_chat_commands(r);
    register_channel_commands(r);
    register_audit_commands(r);
    register_retention_commands(r);
    register_backup_commands(r);
    register_agent_mcp_commands(r);
    return r;
}

}  // namespace coffer::cli
