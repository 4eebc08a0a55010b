#include "shim/options.hpp"

#include "client/spawn.hpp"

#include <cstdlib>
#include <stdexcept>

namespace coffer::shim {

namespace {

Options::Transport parse_transport(const std::string& v, const char* where) {
    if (v == "auto") return Options::Transport::auto_;
    if (v == "local") return Options::Transport::local;
    if (v == "http") return Options::Transport::http;
    throw std::invalid_argument(std::string(where) + " must be auto, local or http (not '" + v + "')");
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
    Options o;
    o.no_spawn = client::no_spawn_from_env();
    if (const char* t = std::getenv("COFFER_SHIM_TRANSPORT"); t && *t) o.transport = parse_transport(t, "COFFER_SHIM_TRANSPORT");
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        std::string value;
        bool inline_value = false;
        if (a.rfind("--", 0) == 0) {
            if (auto eq = a.find('='); eq != std::string::npos) {
                value = a.substr(eq + 1);
                a = a.substr(0, eq);
                inline_value = true;
            }
        }
        auto take = [&](const char* name) {
            if (inline_value) return value;
            if (i + 1 >= args.size()) throw std::invalid_argument(std::string("option '") + name + "' needs a value");
            return args[++i];
        };
        auto flag = [&](const char* name) {
            if (inline_value) throw std::invalid_argument(std::string("option '") + name + "' takes no value");
        };
        if (a == "--agent") {
            o.agent = take("--agent");
            if (o.agent.empty()) throw std::invalid_argument("--agent must not be empty");
        } else if (a == "--channel") {
            auto name = take("--channel");
            if (name.empty()) throw std::invalid_argument("--channel must not be empty");
            o.channels.push_back(name);
        } else if (a == "--home") {
            o.home = take("--home");
        } else if (a == "--transport") {
            o.transport = parse_transport(take("--transport"), "--transport");
        } else if (a == "--no-spawn") {
            flag("--no-spawn");
            o.no_spawn = true;
        } else if (a == "--verbose" || a == "-v") {
            flag("--verbose");
            o.verbose = true;
        } else if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (a == "--version") {
            o.version = true;
        } else {
            throw std::invalid_argument("unknown argument '" + args[i] + "'");
        }
    }
    return o;
}

std::string usage_text() {
    return "Usage: coffer-mcp-shim [--agent NAME] [--channel NAME]... [--home DIR] [--no-spawn] [--transport auto|local|http] [--verbose]\n"
           "\n"
           "A stdio MCP server for MCP clients (Claude Code, Codex, …): newline-delimited JSON-RPC\n"
           "on stdin/stdout, bridged to the Coffer daemon (its local socket, or /mcp over HTTP). It finds the vault's\n"
           "running coffer-daemon through daemon.json, or starts one. Logs go to stderr only.\n"
           "\n"
           "Options:\n"
           "  --agent NAME  who the client is (e.g. claude, codex); sent in the initialize request as\n"
           "                params._meta[\"coffer/agent\"] and used for agent scopes\n"
           "  --channel NAME  listen to the IM channel NAME (one whose deliver is session): its owner's\n"
           "                messages reach this session as Claude Code channel notifications, with a\n"
           "                reply tool back (repeatable)\n"
           "  --home DIR    the vault directory (default $COFFER_HOME, else ~/.coffer)\n"
           "  --no-spawn    never start a daemon (also COFFER_NO_SPAWN=1)\n"
           "  --transport   auto (default): the daemon's Unix-domain socket when it offers one, else\n"
           "                HTTP; local: the socket only; http: Streamable HTTP only\n"
           "                (also COFFER_SHIM_TRANSPORT)\n"
           "  --verbose     progress notes on stderr\n"
           "  --version     print the version\n"
           "\n"
           "Example: claude mcp add coffer -- coffer-mcp-shim --agent claude\n";
}

}  // namespace coffer::shim
