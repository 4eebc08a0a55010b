// coffer agent add|list|show|remove — managed coding agents: resources of an agent-driver kind
// (claude_code, codex, …) over /api/v1/agents. `coffer agent mcp …` and `coffer agent detect`
// live in agent_mcp*.cpp. See docs/agents-and-chat.md.
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <filesystem>

namespace coffer::cli {
namespace json = boost::json;

namespace {

constexpr const char* kGroup = "agent";

// `--env K=V` values as an object; a value without '=' is a usage error.
json::object env_object(const std::vector<std::string>& values) {
    json::object env;
    for (auto& kv : values) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw UsageError("--env takes NAME=VALUE, got '" + kv + "'", kGroup, "add");
        env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return env;
}

void print_agent(std::ostream& out, const json::value& a) {
    const auto& st = field(a, "status");
    out << "agent:" << text_field(a, "name", "?") << '\n'
        << "  driver:   " << text_field(a, "driver", "-") << '\n'
        << "  enabled:  " << text_field(a, "enabled", "-") << '\n'
        << "  command:  " << text_field(field(st, "plugin"), "command", text_field(field(a, "config"), "command", "(on PATH)")) << '\n'
        << "  state:    " << text_field(st, "state", "-") << '\n';
    if (auto e = text_field(st, "last_error"); !e.empty()) out << "  error:    " << e << '\n';
}

int add(Context& ctx, const Invocation& inv) {
    auto driver = inv.value("driver");
    if (!driver) throw UsageError("--driver is required (claude_code or codex)", kGroup, "add");
    json::object config;
    if (auto cmd = inv.value("command")) {
        std::error_code ec;
        auto p = cmd->find('/') != std::string::npos ? std::filesystem::absolute(*cmd, ec).lexically_normal().string() : *cmd;
        config["command"] = p;
    }
    if (auto env = env_object(inv.values_of("env")); !env.empty()) config["env"] = std::move(env);
    if (auto args = inv.values_of("arg"); !args.empty()) {
        json::array a;
        for (auto& v : args) a.emplace_back(v);
        config["args"] = std::move(a);
    }
    json::object body{{"name", inv.args[0]}, {"driver", *driver}, {"config", std::move(config)}};
    if (auto d = inv.value("description")) body["description"] = *d;
    auto reply = ctx.call("POST", client::api_path({"agents"}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& b) {
        ctx.out() << "added ";
        print_agent(ctx.out(), field(b, "agent"));
    });
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::api_path({"agents"}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "agents").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no agents (add one with `coffer agent add NAME --driver claude_code`)\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& a : *list)
            rows.push_back({text_field(a, "name"), text_field(a, "driver"), text_field(a, "enabled", "-"),
                            text_field(field(a, "status"), "state", "-"),
                            text_field(field(a, "config"), "command", "(on PATH)")});
        print_table(ctx.out(), {"NAME", "DRIVER", "ENABLED", "STATE", "COMMAND"}, rows);
    });
}

int show(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("GET", client::api_path({"agents", inv.args[0]}));
    return ctx.respond(reply, [&](const json::value& body) { print_agent(ctx.out(), field(body, "agent")); });
}

int remove(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("DELETE", client::api_path({"agents", inv.args[0]}));
    return ctx.respond(reply, [&](const json::value&) { ctx.out() << "removed agent:" << inv.args[0] << '\n'; });
}

}  // namespace

void register_agent_commands(Registry& r) {
    r.add_group({kGroup, "managed coding agents (Claude Code, Codex) that conversations run (docs/agents-and-chat.md)"});
    r.add({kGroup, "add", "<name> --driver claude_code|codex [--command PATH] [--env NAME=VALUE]... [--arg ARG]...",
           "register an agent; without --command its CLI is found on PATH when a turn starts",
           {{"driver", "DRIVER", "the agent driver: claude_code or codex (any installed agent-driver kind)"},
            {"command", "PATH", "the agent's CLI (default: claude or codex on PATH)"},
            {"env", "NAME=VALUE", "an environment variable for the agent's process (repeatable)"},
            {"arg", "ARG", "an extra flag for the agent's CLI, before the prompt (repeatable, in order; "
                           "e.g. --arg --allowedTools --arg mcp__coffer__fs__read_file)"},
            {"description", "TEXT", "a note shown in listings"}},
           1, 1, add});
    r.add({kGroup, "list", "", "every agent with its driver and state", {}, 0, 0, list});
    r.add({kGroup, "show", "<name>", "one agent", {}, 1, 1, show});
    r.add({kGroup, "remove", "<name>", "remove an agent (its running turns are stopped)", {}, 1, 1, remove});
}

}  // namespace coffer::cli
