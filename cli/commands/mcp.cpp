// coffer mcp add|list|show|status|update|delete|enable|disable|test|refresh — upstream MCP
// servers (resources of kind mcp_server) over the generic resource routes, plus the gateway's
// refresh. See docs/cli.md and docs/mcp-gateway.md.
#include "commands/mcp.hpp"

#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "app/json_input.hpp"
#include "client/url.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <ostream>
#include <stdexcept>

namespace coffer::cli {
namespace json = boost::json;

std::vector<std::string> split_command_line(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false; // a word has started (possibly empty, from '' or "")
    std::size_t i = 0;
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (i < text.size()) {
        char c = text[i];
        if (blank(c)) {
            if (in_word) {
                words.push_back(std::move(word));
                word.clear();
                in_word = false;
            }
            ++i;
            continue;
        }
        in_word = true;
        if (c == '\'') {
            auto end = text.find('\'', i + 1);
            if (end == std::string_view::npos)
                throw std::invalid_argument("unterminated single quote (at character " + std::to_string(i + 1) + ")");
            word.append(text.substr(i + 1, end - i - 1));
            i = end + 1;
        } else if (c == '"') {
            std::size_t j = i + 1;
            while (true) {
                if (j >= text.size())
                    throw std::invalid_argument("unterminated double quote (at character " + std::to_string(i + 1) + ")");
                char d = text[j];
                if (d == '"') break;
                if (d == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) {
                    word.push_back(text[j + 1]);
                    j += 2;
                    continue;
                }
                word.push_back(d);
                ++j;
            }
            i = j + 1;
        } else if (c == '\\') {
            if (i + 1 >= text.size()) throw std::invalid_argument("trailing backslash");
            word.push_back(text[i + 1]);
            i += 2;
        } else {
            word.push_back(c);
            ++i;
        }
    }
    if (in_word) words.push_back(std::move(word));
    return words;
}

namespace {

constexpr std::string_view kKind = "mcp_server";
const char* const kGroup = "mcp";

std::string resource_path(const std::string& name) { return client::api_path({"resources", kKind, name}); }

// The daemon (the mcp_server plugin) owns the name rules; only the obvious is checked here.
void check_name(const std::string& name) {
    if (name.empty()) throw UsageError("the server name must not be empty", kGroup);
}

std::pair<std::string, std::string> key_value(const std::string& text, const char* option) {
    auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw UsageError(std::string("--") + option + " expects KEY=VALUE, got '" + text + "'", kGroup);
    return {text.substr(0, eq), text.substr(eq + 1)};
}

std::optional<bool> yes_no(const std::optional<std::string>& v, const char* option) {
    if (!v) return std::nullopt;
    std::string s = *v;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "yes" || s == "true" || s == "on" || s == "1") return true;
    if (s == "no" || s == "false" || s == "off" || s == "0") return false;
    throw UsageError(std::string("--") + option + " expects yes or no, got '" + *v + "'", kGroup);
}

std::optional<json::value> scope_argument(const Invocation& inv) {
    auto s = inv.value("scope");
    if (!s) return std::nullopt;
    json::value v = parse_json_argument(*s, "--scope", kGroup);
    if (!v.is_array())
        throw UsageError("--scope must be a JSON array such as '[{\"machine\":\"*\",\"agents\":[\"claude\"]}]'", kGroup);
    return v;
}

// Applies the transport and option flags of add/update to `config`. Returns whether anything
// changed.
bool apply_options(json::object& config, const Invocation& inv, bool creating) {
    bool changed = false;
    auto stdio = inv.value("stdio");
    auto http = inv.value("http");
    // `coffer mcp add NAME -- CMD ARGS…`: the words after the name, verbatim.
    std::vector<std::string> trailing(inv.args.size() > 1 ? inv.args.begin() + 1 : inv.args.end(), inv.args.end());
    int transports = (stdio ? 1 : 0) + (http ? 1 : 0) + (trailing.empty() ? 0 : 1);
    if (transports > 1) throw UsageError("give one of --stdio \"CMD ARGS\", --http URL or -- CMD ARGS…", kGroup);
    if (creating && transports == 0)
        throw UsageError("missing transport: give --stdio \"CMD ARGS\", --http URL, or -- CMD ARGS…", kGroup);

    if (stdio || !trailing.empty()) {
        std::vector<std::string> words;
        if (stdio) {
            try {
                words = split_command_line(*stdio);
            } catch (const std::invalid_argument& e) {
                throw UsageError(std::string("--stdio: ") + e.what(), kGroup);
            }
        } else {
            words = trailing;
        }
        if (words.empty() || words.front().empty()) throw UsageError("--stdio: the command is empty", kGroup);
        config.erase("url");
        config.erase("headers");
        config["command"] = words.front();
        json::array args;
        for (std::size_t i = 1; i < words.size(); ++i) args.emplace_back(words[i]);
        if (args.empty()) config.erase("args");
        else config["args"] = std::move(args);
        changed = true;
    }
    if (http) {
        config.erase("command");
        config.erase("args");
        config.erase("env");
        config.erase("cwd");
        config["url"] = *http;
        changed = true;
    }
    auto merge = [&](const char* option, const char* remove_option, const char* member) {
        auto sets = inv.values_of(option);
        auto removes = inv.values_of(remove_option);
        if (sets.empty() && removes.empty()) return;
        json::value& target = config[member];
        if (!target.is_object()) target = json::object();
        for (const auto& r : removes) target.get_object().erase(r);
        for (const auto& s : sets) {
            auto [k, v] = key_value(s, option);
            target.get_object()[k] = v;
        }
        if (target.get_object().empty()) config.erase(member);
        changed = true;
    };
    merge("env", "remove-env", "env");
    merge("header", "remove-header", "headers");
    if (auto cwd = inv.value("cwd")) {
        if (cwd->empty()) config.erase("cwd");
        else config["cwd"] = *cwd;
        changed = true;
    }
    if (auto t = inv.value("timeout-ms")) {
        if (t->empty() || t->size() > 9 || t->find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--timeout-ms expects a number of milliseconds, got '" + *t + "'", kGroup);
        config["timeout_ms"] = std::stoll(*t);
        changed = true;
    }
    if (auto a = yes_no(inv.value("auto-enable-new"), "auto-enable-new")) {
        config["auto_enable_new"] = *a;
        changed = true;
    }
    return changed;
}

const json::value& status_of(const json::value& res) { return field(res, "status"); }

std::string health_of(const json::value& res) {
    const auto& st = status_of(res);
    if (field(res, "enabled").is_bool() && !field(res, "enabled").get_bool() && text_field(st, "health").empty())
        return "disabled";
    if (field(st, "runner_not_installed").is_bool() && field(st, "runner_not_installed").get_bool())
        return "runner not installed";
    return text_field(st, "health", "-");
}

std::string target_of(const json::value& res) {
    const auto& c = field(res, "config");
    if (auto url = text_field(c, "url"); !url.empty()) return url;
    std::string s = text_field(c, "command");
    if (const auto* args = field(c, "args").if_array())
        for (const auto& a : *args) {
            std::string w = as_text(a);
            bool quote = w.empty() || w.find_first_of(" \t\"'\\") != std::string::npos;
            if (quote) {
                std::string q = "'";
                for (char ch : w) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
                w = q + "'";
            }
            s += " " + w;
        }
    return s;
}

std::string transport_of(const json::value& res) {
    return text_field(field(res, "config"), "url").empty() ? "stdio" : "http";
}

std::string masked(const std::string& value, bool verbose) {
    if (verbose || value.rfind("credref:", 0) == 0) return value;
    return value.empty() ? "" : "***";
}

void print_server(std::ostream& out, const json::value& res, bool verbose) {
    const auto& c = field(res, "config");
    const auto& st = status_of(res);
    out << text_field(res, "name", "?") << '\n'
        << "  enabled:     " << text_field(res, "enabled", "-") << '\n'
        << "  health:      " << health_of(res) << '\n';
    if (auto last = text_field(st, "last_error"); !last.empty())
        out << "  last error:  " << last << " (" << text_field(st, "last_error_at", "?") << ")\n";
    out << "  transport:   " << transport_of(res) << '\n';
    if (transport_of(res) == "http") {
        out << "  url:         " << text_field(c, "url") << '\n';
        if (const auto* h = field(c, "headers").if_object())
            for (const auto& kv : *h)
                out << "  header:      " << std::string(kv.key()) << ": " << masked(as_text(kv.value()), verbose) << '\n';
    } else {
        out << "  command:     " << target_of(res) << '\n';
        if (auto cwd = text_field(c, "cwd"); !cwd.empty()) out << "  cwd:         " << cwd << '\n';
        if (const auto* e = field(c, "env").if_object())
            for (const auto& kv : *e)
                out << "  env:         " << std::string(kv.key()) << "=" << masked(as_text(kv.value()), verbose) << '\n';
    }
    out << "  timeout:     " << text_field(c, "timeout_ms", "60000") << " ms\n"
        << "  new tools:   "
        << (field(c, "auto_enable_new").is_bool() && !field(c, "auto_enable_new").get_bool() ? "start disabled"
                                                                                            : "start enabled")
        << '\n';
    if (auto d = text_field(res, "description"); !d.empty()) out << "  description: " << d << '\n';
    if (auto pv = text_field(st, "protocol_version"); !pv.empty()) out << "  protocol:    " << pv << '\n';
    if (const auto& si = field(st, "server_info"); si.is_object())
        out << "  server:      " << text_field(si, "name", "?") << ' ' << text_field(si, "version") << '\n';
    if (verbose) {
        out << "  uid:         " << text_field(res, "uid", "-") << '\n'
            << "  created:     " << text_field(res, "created_at", "-") << '\n'
            << "  updated:     " << text_field(res, "updated_at", "-") << '\n';
        if (st.is_object() && !st.get_object().empty()) out << "  live status: " << compact_json(st) << '\n';
    }
}

int add(Context& ctx, const Invocation& inv) {
    const std::string& name = inv.args[0];
    check_name(name);
    json::object config;
    apply_options(config, inv, true);
    json::object body{{"kind", kKind}, {"name", name}, {"config", std::move(config)}};
    if (auto d = inv.value("description")) body["description"] = *d;
    if (inv.flag("disabled")) body["enabled"] = false;
    if (auto scope = scope_argument(inv)) body["scope"] = *scope;
    auto reply = ctx.call("POST", client::api_path({"resources"}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& b) {
        const auto& r = field(b, "resource");
        ctx.out() << "added mcp server " << text_field(r, "name", name) << " (" << transport_of(r) << ": "
                  << target_of(r) << ")";
        if (field(r, "enabled").is_bool() && !field(r, "enabled").get_bool()) ctx.out() << ", disabled";
        ctx.out() << '\n';
        if (auto last = text_field(status_of(r), "last_error"); !last.empty())
            ctx.out() << "note: " << last << '\n';
        ctx.out() << "its tools appear as " << name << "__<tool>; check it with `coffer mcp test " << name << "`\n";
    });
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::with_query(client::api_path({"resources"}), {{"kind", kKind}}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "resources").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no mcp servers (add one with `coffer mcp add NAME --stdio \"CMD ARGS\"`)\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& r : *list)
            rows.push_back({text_field(r, "name"), text_field(r, "enabled", "-"), health_of(r), transport_of(r),
                            target_of(r)});
        print_table(ctx.out(), {"NAME", "ENABLED", "HEALTH", "TRANSPORT", "TARGET"}, rows);
    });
}

int show(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("GET", resource_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value& body) { print_server(ctx.out(), field(body, "resource"), ctx.verbose()); });
}

json::object status_entry(const json::value& r) {
    const auto& st = status_of(r);
    return json::object{{"name", field(r, "name")},
                        {"enabled", field(r, "enabled")},
                        {"health", health_of(r)},
                        {"last_error", field(st, "last_error")},
                        {"last_error_at", field(st, "last_error_at")},
                        {"status", st}};
}

int status(Context& ctx, const Invocation& inv) {
    client::ApiReply reply;
    if (inv.args.empty())
        reply = ctx.call("GET", client::with_query(client::api_path({"resources"}), {{"kind", kKind}}));
    else
        reply = ctx.call("GET", resource_path(inv.args[0]));
    if (!reply.ok()) return ctx.report(reply);
    json::array servers;
    if (inv.args.empty()) {
        if (const auto* list = field(reply.body(), "resources").if_array())
            for (const auto& r : *list) servers.push_back(status_entry(r));
    } else {
        servers.push_back(status_entry(field(reply.body(), "resource")));
    }
    client::ApiReply shaped = reply;
    shaped.set_body(json::object{{"servers", servers}});
    return ctx.respond(shaped, [&](const json::value&) {
        if (servers.empty()) {
            ctx.out() << "no mcp servers\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& s : servers) {
            std::string last = text_field(s, "last_error", "-");
            rows.push_back({text_field(s, "name"), text_field(s, "enabled", "-"), text_field(s, "health", "-"), last});
        }
        print_table(ctx.out(), {"NAME", "ENABLED", "HEALTH", "LAST ERROR"}, rows);
    });
}

int update(Context& ctx, const Invocation& inv) {
    const std::string& name = inv.args[0];
    // Read, change, write back: the config is replaced as a whole.
    auto current = ctx.call("GET", resource_path(name));
    if (!current.ok()) return ctx.report(current);
    json::object config;
    if (const auto* c = field(field(current.body(), "resource"), "config").if_object()) config = *c;
    bool changed = apply_options(config, inv, false);
    json::object body;
    if (changed) body["config"] = std::move(config);
    if (auto d = inv.value("description")) body["description"] = *d;
    if (auto scope = scope_argument(inv)) body["scope"] = *scope;
    if (body.empty())
        throw UsageError("nothing to update: give --stdio, --http, --env, --header, --cwd, --timeout-ms, "
                         "--auto-enable-new, --description or --scope",
                         kGroup);
    auto reply = ctx.call("PATCH", resource_path(name), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& res) {
        ctx.out() << "updated mcp server " << name << '\n';
        if (ctx.verbose()) print_server(ctx.out(), field(res, "resource"), true);
    });
}

int toggle(Context& ctx, const Invocation& inv, const char* verb) {
    auto reply = ctx.call("POST", resource_path(inv.args[0]) + "/" + verb);
    return ctx.respond(reply, [&](const json::value&) { ctx.out() << verb << "d mcp server " << inv.args[0] << '\n'; });
}

int remove(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("DELETE", resource_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value&) { ctx.out() << "deleted mcp server " << inv.args[0] << '\n'; });
}

int test(Context& ctx, const Invocation& inv) {
    const std::string& name = inv.args[0];
    auto reply = ctx.call("POST", client::api_path({"resources", kKind, name, "actions", "test"}), json::value(json::object()));
    if (!reply.ok()) return ctx.report(reply);
    const auto& r = field(reply.body(), "result");
    bool ok = field(r, "ok").is_bool() ? field(r, "ok").get_bool() : true;
    int code = ctx.respond(reply, [&](const json::value&) {
        auto count = [&](const char* key) {
            const auto* a = field(r, key).if_array();
            return a ? a->size() : 0u;
        };
        if (ok) {
            const auto& si = field(r, "server_info");
            ctx.out() << name << ": ok — " << text_field(si, "name", "?") << ' ' << text_field(si, "version") << ", protocol "
                      << text_field(r, "protocol_version", "?") << ", " << count("tools") << " tools, " << count("resources")
                      << " resources, " << count("prompts") << " prompts (" << text_field(r, "duration_ms", "?") << " ms)\n";
        } else {
            ctx.out() << name << ": FAILED — " << text_field(r, "error", "unknown error") << '\n';
            if (field(r, "runner_not_installed").is_bool() && field(r, "runner_not_installed").get_bool())
                ctx.out() << "hint: install the server's launcher (see `coffer mcp show " << name << "`)\n";
        }
        if (const auto* too_long = field(r, "names_not_exposable").if_array(); too_long && !too_long->empty()) {
            ctx.out() << "warning: these names would exceed 64 characters as " << name << "__<name> and are not exposed:";
            for (const auto& n : *too_long) ctx.out() << ' ' << as_text(n);
            ctx.out() << '\n';
        }
        if (ctx.verbose() || !ok) ctx.out() << pretty_json(r) << '\n';
    });
    return code == exit_code::ok && !ok ? exit_code::failed : code;
}

int refresh(Context& ctx, const Invocation&) {
    auto reply = ctx.call("POST", client::api_path({"mcp", "refresh"}), json::value(json::object()));
    return ctx.respond(reply, [&](const json::value&) {
        ctx.out() << "refreshed: cached tool, resource and prompt lists dropped; connected clients were told to re-list\n";
    });
}

const OptionDef opt_stdio{"stdio", "\"CMD ARGS\"", "a stdio server: the command line, split like a shell (quotes, backslashes)"};
const OptionDef opt_http{"http", "URL", "an HTTP server (Streamable HTTP, legacy HTTP+SSE fallback)"};
const OptionDef opt_header{"header", "K=V", "HTTP: a request header (repeatable); V may be credref:REF"};
const OptionDef opt_env{"env", "K=V", "stdio: an environment variable (repeatable); V may be credref:REF"};
const OptionDef opt_cwd{"cwd", "DIR", "stdio: working directory (absolute or ~/…; empty = the daemon's)"};
const OptionDef opt_timeout{"timeout-ms", "N", "per-call time limit in milliseconds (default 60000)"};
const OptionDef opt_auto{"auto-enable-new", "yes|no", "whether never-seen tools start enabled (default yes)"};
const OptionDef opt_description{"description", "TEXT", "a free-text description"};
const OptionDef opt_scope{"scope", "JSON", "where it applies: [{\"machine\":\"*\",\"agents\":[\"claude\"]}] (default: everywhere)"};

}  // namespace

void register_mcp_commands(Registry& r) {
    r.add_group({"mcp", "upstream MCP servers behind the gateway (kind mcp_server)"});
    r.add({"mcp", "add",
           "<name> (--stdio \"CMD ARGS\" | --http URL | -- CMD ARGS...) [--header K=V]... [--env K=V]... [--cwd DIR] "
           "[--timeout-ms N] [--auto-enable-new yes|no] [--description TEXT] [--disabled] [--scope JSON]",
           "register an upstream MCP server; its tools appear as <name>__<tool> (registration succeeds even "
           "if the server is down: see `coffer mcp status`)",
           {opt_stdio, opt_http, opt_header, opt_env, opt_cwd, opt_timeout, opt_auto, opt_description,
            {"disabled", "", "register it disabled"}, opt_scope},
           1, 4096, add});
    r.add({"mcp", "list", "", "registered servers with health and target", {}, 0, 0, list});
    r.add({"mcp", "show", "<name>", "one server: transport, command or URL, health, last error (env and header values "
                                    "masked unless --verbose)", {}, 1, 1, show});
    r.add({"mcp", "status", "[<name>]", "health and last error of every server (or one)", {}, 0, 1, status});
    r.add({"mcp", "update",
           "<name> [--stdio \"CMD ARGS\" | --http URL | -- CMD ARGS...] [--env K=V]... [--remove-env K]... "
           "[--header K=V]... [--remove-header K]... [--cwd DIR] [--timeout-ms N] [--auto-enable-new yes|no] "
           "[--description TEXT] [--scope JSON]",
           "change a server; options not given keep their values",
           {opt_stdio, opt_http, opt_header, {"remove-header", "K", "drop a header (repeatable)"}, opt_env,
            {"remove-env", "K", "drop an environment variable (repeatable)"}, opt_cwd, opt_timeout, opt_auto,
            opt_description, opt_scope},
           1, 4096, update});
    r.add({"mcp", "delete", "<name>", "unregister a server", {}, 1, 1, remove});
    r.add({"mcp", "enable", "<name>", "enable a server (its tools come back)", {}, 1, 1,
           [](Context& c, const Invocation& i) { return toggle(c, i, "enable"); }});
    r.add({"mcp", "disable", "<name>", "disable a server (its tools disappear from every session)", {}, 1, 1,
           [](Context& c, const Invocation& i) { return toggle(c, i, "disable"); }});
    r.add({"mcp", "test", "<name>", "connect to the server, list its capabilities, report (exit 1 when it fails)", {},
           1, 1, test});
    r.add({"mcp", "refresh", "", "drop the gateway's cached lists; connected clients are told to re-list", {}, 0, 0,
           refresh});
    register_mcp_curation_commands(r);  // tools, tool/resource/prompt enable|disable, invocations
    register_mcp_login_command(r);
}

}  // namespace coffer::cli
