#include "app/args.hpp"

#include <cctype>
#include <filesystem>

namespace coffer::cli {

namespace {

const OptionDef* find_option(const std::vector<OptionDef>& options, std::string_view name) {
    for (const auto& o : options)
        if (o.name == name) return &o;
    return nullptr;
}

// Any option of any command of the group: lets options come before the command name.
const OptionDef* find_in_group(const Registry& r, std::string_view group, std::string_view name) {
    for (const auto* c : r.commands_of(group))
        if (const auto* o = find_option(c->options, name)) return o;
    return nullptr;
}

bool looks_like_option(const std::string& tok) {
    if (tok.size() < 2 || tok[0] != '-') return false;
    return !std::isdigit(static_cast<unsigned char>(tok[1])); // "-1" is a value
}

std::string command_label(const Invocation& inv) {
    std::string s = "coffer " + inv.group;
    if (!inv.command.empty()) s += " " + inv.command;
    return s;
}

}  // namespace

const std::vector<OptionDef>& global_options() {
    static const std::vector<OptionDef> options = {
        {"json", "", "print exactly one JSON document on stdout (errors too)"},
        {"verbose", "", "more detail: error details, trace ids, what detect-or-spawn did"},
        {"no-spawn", "", "never start a daemon (also COFFER_NO_SPAWN=1); none running → exit 3"},
        {"home", "DIR", "the vault directory (default $COFFER_HOME, else ~/.coffer)"},
        {"help", "", "show help"},
        {"version", "", "print the CLI version"},
    };
    return options;
}

Invocation parse_command_line(const Registry& registry, const std::vector<std::string>& argv) {
    Invocation inv;
    const CommandDef* command = nullptr;
    bool positional_only = false;
    bool help_word = false;

    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& tok = argv[i];
        if (!positional_only && tok == "--") {
            positional_only = true;
            continue;
        }
        if (!positional_only && looks_like_option(tok)) {
            std::string name;
            std::optional<std::string> inline_value;
            if (tok == "-h") {
                name = "help";
            } else if (tok.rfind("--", 0) == 0) {
                std::string body = tok.substr(2);
                auto eq = body.find('=');
                name = body.substr(0, eq);
                if (eq != std::string::npos) inline_value = body.substr(eq + 1);
            } else {
                throw UsageError("unknown option '" + tok + "'", inv.group, inv.command);
            }
            const OptionDef* def = find_option(global_options(), name);
            if (!def && command) def = find_option(command->options, name);
            if (!def && !command && !inv.group.empty()) def = find_in_group(registry, inv.group, name);
            if (!def) {
                std::string where = inv.group.empty() ? "" : " for '" + command_label(inv) + "'";
                throw UsageError("unknown option '--" + name + "'" + where, inv.group, inv.command);
            }
            if (def->takes_value()) {
                if (inline_value) {
                    inv.values[name] = *inline_value;
                    inv.all_values[name].push_back(*inline_value);
                } else if (i + 1 < argv.size()) {
                    inv.values[name] = argv[++i];
                    inv.all_values[name].push_back(argv[i]);
                } else {
                    throw UsageError("option '--" + name + "' needs a value (" + def->value_name + ")",
                                     inv.group, inv.command);
                }
            } else {
                if (inline_value)
                    throw UsageError("option '--" + name + "' takes no value", inv.group, inv.command);
                inv.flags.insert(name);
            }
            continue;
        }
        // A positional word.
        if (inv.group.empty()) {
            if (tok == "help" && !help_word) {
                help_word = true;
                inv.flags.insert("help");
                continue;
            }
            if (!registry.group(tok)) throw UsageError("unknown command '" + tok + "'");
            inv.group = tok;
            if (!registry.has_subcommands(tok)) command = registry.command(tok, "");
            continue;
        }
        if (!command) {
            command = registry.command(inv.group, tok);
            if (!command) {
                if (inv.flag("help")) continue; // `coffer resource nonsense --help` → group help
                throw UsageError("unknown command '" + tok + "' for 'coffer " + inv.group + "'",
                                 inv.group);
            }
            inv.command = tok;
            continue;
        }
        inv.args.push_back(tok);
    }
    return inv;
}

const CommandDef& validate(const Registry& registry, const Invocation& inv) {
    if (inv.group.empty()) throw UsageError("missing command");
    const CommandDef* command = registry.command(inv.group, inv.command);
    if (!command) throw UsageError("missing command for 'coffer " + inv.group + "'", inv.group);

    auto check = [&](const std::string& name) {
        if (find_option(global_options(), name) || find_option(command->options, name)) return;
        throw UsageError("option '--" + name + "' does not apply to '" + command_label(inv) + "'",
                         inv.group);
    };
    for (const auto& [name, value] : inv.values) check(name);
    for (const auto& name : inv.flags) check(name);

    if (inv.args.size() < command->min_args)
        throw UsageError("missing arguments (usage: " + command_label(inv) + " " + command->synopsis +
                             ")",
                         inv.group);
    if (inv.args.size() > command->max_args)
        throw UsageError("unexpected argument '" + inv.args[command->max_args] + "' for '" +
                             command_label(inv) + "'",
                         inv.group);
    return *command;
}

std::string absolute_path_arg(const std::string& path, const char* group, const char* command) {
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec).lexically_normal().string();
    if (ec) throw UsageError("cannot resolve the path '" + path + "'", group, command);
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
}

}  // namespace coffer::cli
