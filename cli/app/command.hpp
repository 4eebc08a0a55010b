// The command table: groups (`coffer resource …`), their commands, options and handlers.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::cli {

class Context;

struct OptionDef {
    std::string name;       // without the leading "--"
    std::string value_name; // e.g. "JSON"; empty for a flag
    std::string help;
    bool takes_value() const noexcept { return !value_name.empty(); }
};

// What the parser made of the command line.
struct Invocation {
    std::string group;             // "resource"
    std::string command;           // "create"; empty for a group without subcommands
    std::vector<std::string> args; // positionals after the command
    std::map<std::string, std::string, std::less<>> values; // the last value of each option
    std::map<std::string, std::vector<std::string>, std::less<>> all_values; // every value, in order
    std::set<std::string, std::less<>> flags;

    bool flag(std::string_view name) const { return flags.contains(name); }
    std::optional<std::string> value(std::string_view name) const {
        if (auto it = values.find(name); it != values.end()) return it->second;
        return std::nullopt;
    }
    // Every value of a repeatable option (`--header A=1 --header B=2`), in command-line order.
    std::vector<std::string> values_of(std::string_view name) const {
        if (auto it = all_values.find(name); it != all_values.end()) return it->second;
        return {};
    }
};

struct CommandDef {
    std::string group;
    std::string name;     // empty: the group itself is the command (e.g. `coffer audit`)
    std::string synopsis; // arguments and options after "coffer <group> <name>"
    std::string summary;
    std::vector<OptionDef> options;
    std::size_t min_args = 0;
    std::size_t max_args = 0;
    std::function<int(Context&, const Invocation&)> run;
};

struct GroupDef {
    std::string name;
    std::string summary;
};

class Registry {
public:
    void add_group(GroupDef group) { groups_.push_back(std::move(group)); }
    void add(CommandDef command) { commands_.push_back(std::move(command)); }

    const std::vector<GroupDef>& groups() const noexcept { return groups_; }
    const GroupDef* group(std::string_view name) const;
    const CommandDef* command(std::string_view group, std::string_view name) const;
    std::vector<const CommandDef*> commands_of(std::string_view group) const;
    // True when the group's commands have names (`coffer daemon start`), false for `coffer audit`.
    bool has_subcommands(std::string_view group) const;

private:
    std::vector<GroupDef> groups_;
    std::vector<CommandDef> commands_;
};

// One registration function per commands/*.cpp file.
void register_daemon_commands(Registry& registry);
void register_service_commands(Registry& registry);  // daemon install-service / uninstall-service
void register_console_commands(Registry& registry);  // open
void register_plugin_commands(Registry& registry);
void register_resource_commands(Registry& registry);
void register_audit_commands(Registry& registry);
void register_retention_commands(Registry& registry);
void register_mcp_commands(Registry& registry);
void register_skill_commands(Registry& registry);
void register_kb_commands(Registry& registry);
void register_memory_commands(Registry& registry);
void register_backup_commands(Registry& registry);
void register_credential_commands(Registry& registry);
void register_agent_commands(Registry& registry);
void register_agent_mcp_commands(Registry& registry);
void register_chat_commands(Registry& registry);
void register_channel_commands(Registry& registry);

// Every command of the CLI.
Registry make_registry();

}  // namespace coffer::cli
