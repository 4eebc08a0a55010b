// Coffer's MCP entry in Claude Code's ~/.claude.json and Codex's config.toml.
#include "agentconf/mcp_entry.hpp"

#include "agentconf/json_member.hpp"
#include "agentconf/toml_table.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdlib>

namespace coffer::agentconf {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path env_path(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? fs::path(v) : fs::path();
}

JsonPath claude_path(const std::string& name) { return {"mcpServers", name}; }
TomlPath codex_path(const std::string& name) { return {"mcp_servers", name}; }

json::array to_array(const std::vector<std::string>& v) {
    json::array a;
    for (const auto& s : v) a.emplace_back(s);
    return a;
}

}  // namespace

std::optional<AgentType> parse_agent_type(std::string_view name) {
    if (name == "claude_code") return AgentType::claude_code;
    if (name == "codex") return AgentType::codex;
    return std::nullopt;
}

std::string_view to_string(AgentType type) { return type == AgentType::claude_code ? "claude_code" : "codex"; }

AgentEnv AgentEnv::from_process() {
    return AgentEnv{env_path("HOME"), env_path("CODEX_HOME"), env_path("CLAUDE_CONFIG_DIR")};
}

fs::path config_dir(AgentType type, const AgentEnv& env) {
    if (type == AgentType::claude_code) return env.claude_config_dir.empty() ? env.home / ".claude" : env.claude_config_dir;
    return env.codex_home.empty() ? env.home / ".codex" : env.codex_home;
}

fs::path config_path(AgentType type, const AgentEnv& env) {
    if (type == AgentType::claude_code)
        return env.claude_config_dir.empty() ? env.home / ".claude.json" : env.claude_config_dir / ".claude.json";
    return config_dir(type, env) / "config.toml";
}

core::Result<Plan> plan_install(AgentType type, const AgentEnv& env, const McpEntry& entry) {
    auto snap = read_config(config_path(type, env));
    if (!snap) return std::move(snap).error();
    Plan plan{type, std::move(*snap), {}};
    const std::string& text = plan.before.text;
    if (type == AgentType::claude_code) {
        auto current = json_get(text.empty() ? std::string_view("{}") : std::string_view(text), claude_path(entry.name));
        if (!current) return std::move(current).error();
        core::Result<std::string> next = std::string();
        if (*current && (*current)->is_object()) {
            // Set only the members Coffer owns, so a user's additions (env, timeouts) stay.
            std::string t = text;
            for (auto& [key, value] : std::vector<std::pair<std::string, json::value>>{
                     {"type", json::value("stdio")}, {"command", json::value(entry.command)}, {"args", json::value(to_array(entry.args))}}) {
                auto r = json_set(t, {"mcpServers", entry.name, key}, value);
                if (!r) return std::move(r).error();
                t = std::move(*r);
            }
            next = std::move(t);
        } else {
            json::object v{{"type", "stdio"}, {"command", entry.command}, {"args", to_array(entry.args)}, {"env", json::object{}}};
            next = json_set(text, claude_path(entry.name), v);
        }
        if (!next) return std::move(next).error();
        plan.after = std::move(*next);
        if (!plan.before.exists && plan.after.back() != '\n') plan.after += '\n';
    } else {
        auto next = toml_set_table(text, codex_path(entry.name), {{"command", entry.command}, {"args", entry.args}});
        if (!next) return std::move(next).error();
        plan.after = std::move(*next);
    }
    return plan;
}

core::Result<Plan> plan_uninstall(AgentType type, const AgentEnv& env, const std::string& name) {
    auto snap = read_config(config_path(type, env));
    if (!snap) return std::move(snap).error();
    Plan plan{type, std::move(*snap), {}};
    if (!plan.before.exists) return plan;
    core::Result<std::string> next = type == AgentType::claude_code
                                         ? json_remove(plan.before.text, claude_path(name), /*prune mcpServers*/ 1)
                                         : toml_remove_table(plan.before.text, codex_path(name));
    if (!next) return std::move(next).error();
    plan.after = std::move(*next);
    return plan;
}

core::Result<void> apply(const Plan& plan, const std::function<void()>& before_commit) {
    if (!plan.changed()) return {};
    return replace_config(plan.before, plan.after, before_commit);
}

core::Result<EntryState> entry_state(AgentType type, const AgentEnv& env, const std::string& name) {
    auto snap = read_config(config_path(type, env));
    if (!snap) return std::move(snap).error();
    EntryState st;
    st.path = snap->path;
    st.config_exists = snap->exists;
    if (!snap->exists) return st;
    if (type == AgentType::claude_code) {
        auto v = json_get(snap->text, claude_path(name));
        if (!v) return std::move(v).error();
        if (*v && (*v)->is_object()) {
            st.installed = true;
            const auto& o = (*v)->get_object();
            if (auto* c = o.if_contains("command"); c && c->is_string()) st.command = std::string(c->get_string());
            if (auto* a = o.if_contains("args"); a && a->is_array())
                for (const auto& x : a->get_array())
                    if (x.is_string()) st.args.emplace_back(x.get_string());
        }
    } else {
        auto t = toml_get_table(snap->text, codex_path(name));
        if (!t) return std::move(t).error();
        st.installed = t->exists;
        for (const auto& k : t->keys) {
            if (k.key == "command" && std::holds_alternative<std::string>(k.value)) st.command = std::get<std::string>(k.value);
            if (k.key == "args" && std::holds_alternative<std::vector<std::string>>(k.value))
                st.args = std::get<std::vector<std::string>>(k.value);
        }
    }
    return st;
}

}  // namespace coffer::agentconf
