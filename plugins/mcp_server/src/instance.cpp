#include "instance.hpp"

#include "connection.hpp"
#include "http_transport.hpp"
#include "names.hpp"
#include "probe.hpp"
#include "session.hpp"
#include "spawn.hpp"

namespace coffer::mcp_server {

ServerInstance::ServerInstance(Runtime& rt, ServerConfig cfg) : up_(std::make_shared<Upstream>(rt, std::move(cfg))) {
    precheck();
}

ServerInstance::~ServerInstance() {
    up_->set_running(false);
    close_all("mcp_server '" + up_->name() + "' was removed");
}

void ServerInstance::start() {
    up_->set_running(true);
    precheck();
}

void ServerInstance::stop() {
    up_->set_running(false);
    close_all("mcp_server '" + up_->name() + "' was stopped");
}

void ServerInstance::update(const json::object& config) {
    Instance::update(config);
    up_->set_config(parse_config(up_->name(), config));
    up_->health().reset();
    close_all("the configuration of mcp_server '" + up_->name() + "' changed");
    precheck();
}

void ServerInstance::precheck() {
    auto cfg = up_->config();
    if (cfg->transport == TransportKind::http) {
        if (!up_->running() || !up_->runtime().running()) return;
        // Only a TCP connect, in the background; a failure is reported, not backed off.
        std::weak_ptr<Upstream> weak = up_;
        auto limit = std::min(cfg->timeout, std::chrono::milliseconds(3000));
        check_reachable(up_->runtime(), cfg->url, limit, [weak, cfg](std::string error) {
            auto up = weak.lock();
            if (!up || error.empty() || up->config() != cfg) return;
            if (up->health().state() == "unknown") up->health().refused(error, false);
        });
        return;
    }
    auto env = child::environment(cfg->env);
    auto r = resolve_command(cfg->command, child::env_value(env, "PATH"), expand_home(cfg->cwd));
    if (r.path.empty()) up_->health().refused(r.error, true);
}

void ServerInstance::close_all(const std::string& why) {
    auto conns = up_->connections();
    if (conns.empty()) return;
    up_->runtime().run_sync([&] {
        for (auto& c : conns) c->close(Failure{err::kUnavailable, why, std::string(reason::closed), {}});
    });
}

json::value ServerInstance::status() {
    auto cfg = up_->config();
    auto o = up_->health().to_json(Health::Clock::now());
    o["transport"] = cfg->transport == TransportKind::http ? "http" : "stdio";
    o["target"] = cfg->transport == TransportKind::http ? cfg->url : cfg->command;
    o["running"] = up_->running();
    // Where the plugin's upstream I/O runs: on the host's lent loop (ABI 1.9) or its own thread.
    o["io"] = up_->runtime().lent() ? "host_loop" : "own_thread";
    o["timeout_ms"] = cfg->timeout.count();
    return o;
}

json::value ServerInstance::action(std::string_view name, const json::object& args) {
    if (name == "login") return login(args);
    if (name == "login_complete") return login_complete(args);
    if (!args.empty())
        throw sdk::Error(COFFER_E_INVALID, std::string(name) + " takes no arguments",
                         json::object{{"errors", json::array{json::object{{"pointer", "/" + std::string(args.begin()->key())},
                                                                          {"message", "unknown argument"}}}}});
    if (name == "test") return test();
    if (name == "tools") return tools();
    return Instance::action(name, args);
}

json::value ServerInstance::test() {
    auto r = probe(up_, ProbeOptions{true});
    json::array tools, resources, prompts, too_long;
    for (auto& t : r.tools)
        if (auto* n = t.is_object() ? t.as_object().if_contains("name") : nullptr; n && n->is_string()) {
            tools.push_back(*n);
            if (!exposed_name_fits(up_->name(), n->as_string())) too_long.push_back(*n);
        }
    for (auto& p : r.prompts)
        if (auto* n = p.is_object() ? p.as_object().if_contains("name") : nullptr; n && n->is_string()) {
            prompts.push_back(*n);
            if (!exposed_name_fits(up_->name(), n->as_string())) too_long.push_back(*n);
        }
    for (auto& res : r.resources)
        if (auto* u = res.is_object() ? res.as_object().if_contains("uri") : nullptr; u && u->is_string())
            resources.push_back(*u);
    json::object o{{"ok", r.ok},
                   {"protocol_version", r.protocol_version.empty() ? json::value(nullptr) : json::value(r.protocol_version)},
                   {"server_info", r.server_info},
                   {"tools", std::move(tools)},
                   {"resources", std::move(resources)},
                   {"prompts", std::move(prompts)},
                   {"duration_ms", r.duration_ms},
                   {"error", r.ok ? json::value(nullptr) : json::value(r.error)}};
    if (!too_long.empty()) o["names_not_exposable"] = std::move(too_long);
    if (r.runner_missing) o["runner_not_installed"] = true;
    return o;
}

json::value ServerInstance::tools() {
    auto r = probe(up_, ProbeOptions{false});
    if (!r.ok)
        throw sdk::Error(r.runner_missing ? COFFER_E_UNAVAILABLE : COFFER_E_UNAVAILABLE,
                         "cannot list the tools of mcp_server '" + up_->name() + "': " + r.error,
                         json::object{{"runner_not_installed", r.runner_missing}});
    json::array out;
    for (auto& t : r.tools) {
        if (!t.is_object()) continue;
        auto& o = t.as_object();
        auto* n = o.if_contains("name");
        if (!n || !n->is_string()) continue;
        auto* d = o.if_contains("description");
        out.push_back(json::object{{"name", *n}, {"description", d && d->is_string() ? *d : json::value("")}});
    }
    auto count = out.size();
    return json::object{{"tools", std::move(out)}, {"count", count}};
}

std::unique_ptr<sdk::McpSessionState> ServerInstance::open_mcp(sdk::McpSession session, const json::object& info) {
    return std::make_unique<Session>(up_, session, info);
}

namespace {

// The one string argument `key` of an action (and nothing else).
std::string only_string(const json::object& args, const char* action, const char* key, std::size_t max) {
    for (auto& kv : args)
        if (kv.key() != key)
            throw sdk::Error(COFFER_E_INVALID, std::string(action) + " takes only " + key,
                             json::object{{"errors", json::array{json::object{{"pointer", "/" + std::string(kv.key())},
                                                                              {"message", "unknown argument"}}}}});
    auto* v = args.if_contains(key);
    if (!v || !v->is_string() || v->get_string().empty() || v->get_string().size() > max)
        throw sdk::Error(COFFER_E_INVALID, std::string(action) + " needs " + key + " (a string)",
                         json::object{{"errors", json::array{json::object{{"pointer", "/" + std::string(key)},
                                                                          {"message", "required string"}}}}});
    return std::string(v->get_string());
}

// Runs one step of a login; what the OAuth exchange refuses, or a network failure, becomes
// UNAVAILABLE naming the server.
template <typename F> json::object login_step(const ServerConfig& cfg, F&& step) {
    try {
        return step();
    } catch (const oauth::Error& e) {
        throw sdk::Error(COFFER_E_UNAVAILABLE, "mcp_server:" + cfg.name + ": " + e.what());
    } catch (const http_client::Error& e) {
        throw sdk::Error(COFFER_E_UNAVAILABLE, "mcp_server:" + cfg.name + ": " + e.what());
    }
}

}  // namespace

json::value ServerInstance::login(const json::object& args) {
    auto redirect = only_string(args, "login", "redirect_uri", 2048);
    if (!redirect.starts_with("http://127.0.0.1:") && !redirect.starts_with("http://localhost:") &&
        !redirect.starts_with("http://[::1]:"))
        throw sdk::Error(COFFER_E_INVALID, "redirect_uri must be a loopback http URL with a port (RFC 8252)");
    auto cfg = up_->config();
    return login_step(*cfg, [&] { return logins_.begin(up_->runtime().host(), *cfg, redirect); });
}

json::value ServerInstance::login_complete(const json::object& args) {
    auto query = only_string(args, "login_complete", "query", 16384);
    auto cfg = up_->config();
    auto out = login_step(*cfg, [&] { return logins_.complete(up_->runtime().host(), *cfg, query); });
    // Connections opened before used no token: the next call connects with it, without waiting
    // out the backoff of the refused attempts.
    up_->forget_recent_oauth();
    up_->health().reset();
    close_all("logged in; reconnecting with the new token");
    up_->runtime().host().audit("oauth_login", cfg->name, json::object{{"scope", out["scope"]}});
    return out;
}

}  // namespace coffer::mcp_server
