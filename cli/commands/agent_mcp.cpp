// coffer agent mcp install|uninstall <agent> — Coffer's shim entry (`coffer-mcp-shim --agent
// <agent>`) in the agent's own MCP config: Claude Code's ~/.claude.json, Codex's
// ~/.codex/config.toml. Local files only: no daemon is involved. The edit itself is
// cli/agentconf's (a minimal, format-preserving change, atomic, with a .bak). See
// docs/agent-mcp-install.md.
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "commands/agent_mcp.hpp"

#include "agentconf/mcp_entry.hpp"
#include "agentconf/unified_diff.hpp"
#include "client/process.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <ostream>

namespace coffer::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kGroup = "agent";

json::array strings(const std::vector<std::string>& v) {
    json::array a;
    for (const auto& s : v) a.emplace_back(s);
    return a;
}

// `coffer agent mcp install|uninstall <agent> [--type T] [--shim PATH] [--dry-run]`.
int mcp(Context& ctx, const Invocation& inv) {
    const std::string& action = inv.args[0];
    if (action != "install" && action != "uninstall")
        throw UsageError("expected 'install' or 'uninstall', not '" + action + "'", kGroup, "mcp");
    const std::string& agent = inv.args[1];
    auto type_name = inv.value("type").value_or(agent);
    auto type = agentconf::parse_agent_type(type_name);
    if (!type)
        throw UsageError(inv.value("type") ? "unknown agent type '" + type_name + "' (claude_code or codex)"
                                           : "'" + agent + "' is not an agent type (claude_code or codex): give --type",
                         kGroup, "mcp");
    bool dry = inv.flag("dry-run");
    auto env = agentconf::AgentEnv::from_process();
    if (env.home.empty() && env.codex_home.empty() && env.claude_config_dir.empty())
        return ctx.fail(core::Error::make(core::code::bad_request, "HOME is not set: cannot find the agent's config"));

    core::Result<agentconf::Plan> plan = core::Error{};
    agentconf::McpEntry entry;
    if (action == "install") {
        auto shim = inv.value("shim") ? fs::absolute(*inv.value("shim")) : resolve_shim();
        if (shim.empty())
            return ctx.fail(core::Error::make(core::code::not_found,
                                              "coffer-mcp-shim is not installed next to coffer (" + client::self_exe_dir().string() +
                                                  "): install it, or give its path with --shim"));
        entry.command = shim.lexically_normal().string();
        entry.args = {"--agent", agent};
        for (auto& channel : inv.values_of("channel")) {  // IM channels into the agent's sessions (ADR 0041)
            entry.args.push_back("--channel");
            entry.args.push_back(channel);
        }
        plan = agentconf::plan_install(*type, env, entry);
    } else {
        plan = agentconf::plan_uninstall(*type, env);
    }
    if (!plan) return ctx.fail(plan.error());
    const auto& p = *plan;
    const auto path = p.before.path;
    std::string diff = agentconf::unified_diff(p.before.exists ? p.before.text : "", p.after,
                                               p.before.exists ? path.string() : "/dev/null", path.string());
    if (!dry) {
        if (auto r = agentconf::apply(p); !r.ok()) return ctx.fail(r.error());
    }
    bool backup = !dry && p.changed() && p.before.exists;
    if (ctx.json()) {
        json::object out{{"action", action},
                         {"agent", agent},
                         {"type", std::string(agentconf::to_string(*type))},
                         {"path", path.string()},
                         {"changed", p.changed()},
                         {"dry_run", dry},
                         {"backup", backup ? json::value(agentconf::backup_path(path).string()) : json::value(nullptr)}};
        if (action == "install") out["entry"] = json::object{{"name", entry.name}, {"command", entry.command}, {"args", strings(entry.args)}};
        if (dry) out["diff"] = diff;
        ctx.print_json(out);
        return exit_code::ok;
    }
    auto& out = ctx.out();
    if (dry) {
        if (diff.empty()) out << "no change: " << path.string() << (action == "install" ? " already has" : " has no") << " Coffer's entry\n";
        else out << diff;
        return exit_code::ok;
    }
    if (!p.changed()) {
        out << (action == "install" ? "already installed: " : "not installed: ") << path.string() << '\n';
        return exit_code::ok;
    }
    out << (action == "install" ? "installed Coffer's MCP entry for " : "removed Coffer's MCP entry for ") << agent << " in "
        << path.string() << '\n';
    if (action == "install") {
        out << "  runs: " << entry.command;
        for (auto& a : entry.args) out << ' ' << a;
        out << '\n';
    }
    if (backup) out << "  previous file: " << agentconf::backup_path(path).string() << '\n';
    return exit_code::ok;
}

}  // namespace

fs::path resolve_shim() {
    auto dir = client::self_exe_dir();
    if (dir.empty()) return {};
    auto shim = dir / "coffer-mcp-shim";
    std::error_code ec;
    return fs::is_regular_file(shim, ec) ? shim : fs::path();
}

void register_agent_mcp_commands(Registry& r) {
    // The group may also be registered by the agent resource commands; it is added once.
    if (!r.group(kGroup)) r.add_group({kGroup, "managed coding agents (Claude Code, Codex): their MCP entry and detection"});
    r.add({kGroup, "mcp", "install|uninstall <agent> [--type claude_code|codex] [--shim PATH] [--channel NAME]... [--dry-run]",
           "add (or remove) Coffer's coffer-mcp-shim entry in the agent's own MCP config",
           {{"type", "TYPE", "the agent's type when <agent> is not one: claude_code or codex"},
            {"shim", "PATH", "the coffer-mcp-shim to run (default: the one next to this coffer)"},
            {"channel", "NAME", "an IM channel (deliver session) whose messages reach the agent's sessions; repeatable"},
            {"dry-run", "", "print the change as a unified diff and write nothing"}},
           2, 2, mcp});
    r.add({kGroup, "detect", "", "agents found on this machine (binaries on PATH, config folders, Coffer's entry), registering nothing",
           {}, 0, 0, detect_agents});
}

}  // namespace coffer::cli
