// A whole agent-driver kind (ABI 1.5) from two pieces a driver writes: how to call its CLI
// (argv) and how to read what it prints (a StreamParser). Everything else is shared: the config
// (command, env, args, interrupt grace), the turn request checks, finding the program on PATH,
// the MCP config handed over as a file, and the Runner (process groups, interrupt, reaping).
//
//   struct MyDriver : coffer::agent::Driver { … };
//   class MyPlugin : public coffer::sdk::Plugin {
//     public: MyPlugin() { add_kind<coffer::agent::DriverKind>(*this, std::make_shared<MyDriver>()); }
//     void shutdown() override { coffer::agent::DriverKind::shutdown_all(*this); }
//   };
//
// Header-only. See docs/agents-and-chat.md.
#pragma once

#include <coffer/agent_runner.hpp>
#include <coffer/atomic_file.hpp>
#include <coffer/sdk.hpp>

#include <boost/json.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace coffer::agent {

// The instance's config, as the kind's schema allows it.
struct DriverConfig {
    std::string command;  // empty: the driver's default name, found on PATH
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<std::string> args;  // extra flags, placed before the prompt
    std::chrono::milliseconds interrupt_grace{2000};
};

// One turn, as the driver needs it to build the command line.
struct TurnRequest {
    std::string turn_id, prompt, cwd;
    std::optional<std::string> resume_key;
    std::optional<std::string> mcp_config_file;  // written by the kind when the request had one
    json::object mcp_config;                     // the request's own object (empty when none)
};

// What a driver plugin writes.
class Driver {
public:
    virtual ~Driver() = default;
    virtual std::string kind() const = 0;             // e.g. "claude_code"
    virtual std::string default_command() const = 0;  // e.g. "claude"
    virtual std::string schema() const = 0;           // JSON Schema of DriverConfig
    // The whole argv (argv[0] = the resolved program). Keep the flag list in this one function.
    virtual std::vector<std::string> argv(const std::string& program, const DriverConfig& config,
                                          const TurnRequest& turn) const = 0;
    virtual std::unique_ptr<StreamParser> parser() const = 0;
};

inline DriverConfig parse_config(const json::object& c) {
    DriverConfig out;
    if (auto* v = c.if_contains("command"); v && v->is_string()) out.command = std::string(v->as_string());
    if (auto* v = c.if_contains("env"); v && v->is_object())
        for (auto& kv : v->as_object())
            if (kv.value().is_string()) out.env.emplace_back(std::string(kv.key()), std::string(kv.value().as_string()));
    if (auto* v = c.if_contains("args"); v && v->is_array())
        for (auto& a : v->as_array())
            if (a.is_string()) out.args.emplace_back(a.as_string());
    if (auto* v = c.if_contains("interrupt_grace_ms"); v && v->is_int64())
        out.interrupt_grace = std::chrono::milliseconds(v->as_int64());
    return out;
}

inline std::string text_of(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

class DriverKind;

class DriverInstance : public sdk::Instance {
public:
    DriverInstance(DriverKind& kind, const sdk::ResourceInfo& info) : kind_(kind) { config_ = parse_config(info.config); }
    void update(const json::object& config) override {
        info_.config = config;
        config_ = parse_config(config);
    }
    json::value status() override;
    void start_turn(sdk::AgentTurn turn, const json::object& request) override;
    void interrupt_turn(coffer_turn* turn) override;
    void stop() override;

private:
    DriverKind& kind_;
    DriverConfig config_;
};

class DriverKind : public sdk::Kind {
public:
    DriverKind(sdk::Plugin& plugin, std::shared_ptr<Driver> driver) : plugin_(plugin), driver_(std::move(driver)) {}
    std::string name() const override { return driver_->kind(); }
    std::string schema() const override { return driver_->schema(); }
    bool drives_agent() const override { return true; }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& r) override {
        return std::make_unique<DriverInstance>(*this, r);
    }
    void validate(const json::object& config, sdk::Validation& v) override {
        if (auto* c = config.if_contains("command"); c && c->is_string() && c->as_string().empty())
            v.fail("/command", "must not be empty (leave it out to find the CLI on PATH)");
    }

    const Driver& driver() const { return *driver_; }
    const sdk::Host& host() const { return plugin_.host(); }
    Runner& runner() {
        std::lock_guard<std::mutex> g(mu_);
        if (!runner_) runner_ = std::make_unique<Runner>(plugin_.host());
        return *runner_;
    }
    void shutdown() {
        std::unique_ptr<Runner> r;
        {
            std::lock_guard<std::mutex> g(mu_);
            r = std::move(runner_);
        }
        if (r) r->shutdown();
    }
    // For a plugin's shutdown(): every DriverKind of the plugin.
    static void shutdown_all(sdk::Plugin& p) {
        for (auto& k : p.kinds())
            if (auto* d = dynamic_cast<DriverKind*>(k.get())) d->shutdown();
    }

private:
    sdk::Plugin& plugin_;
    std::shared_ptr<Driver> driver_;
    std::mutex mu_;
    std::unique_ptr<Runner> runner_;
};

inline json::value DriverInstance::status() {
    return json::object{{"driver", kind_.driver().kind()},
                        {"command", config_.command.empty() ? kind_.driver().default_command() : config_.command},
                        {"running_turns", static_cast<std::uint64_t>(kind_.runner().running())}};
}

inline void DriverInstance::start_turn(sdk::AgentTurn turn, const json::object& request) {
    TurnRequest t;
    t.turn_id = text_of(request, "turn_id");
    t.prompt = text_of(request, "prompt");
    t.cwd = text_of(request, "cwd");
    if (auto* r = request.if_contains("resume_key"); r && r->is_string() && !r->as_string().empty())
        t.resume_key = std::string(r->as_string());
    if (t.prompt.empty()) throw sdk::Error(COFFER_E_INVALID, "the turn has no prompt");
    struct stat st {};
    if (t.cwd.empty() || t.cwd.front() != '/' || ::stat(t.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw sdk::Error(COFFER_E_INVALID, "the working directory '" + t.cwd + "' is not an existing folder");
    Command cmd;
    cmd.env = child::environment(config_.env);
    std::string wanted = config_.command.empty() ? kind_.driver().default_command() : config_.command;
    auto found = child::resolve(wanted, child::env_value(cmd.env, "PATH"));
    if (found.path.empty())
        throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot start the agent: " + found.error +
                                                   " (install it, or set the resource's config.command)");
    if (auto* m = request.if_contains("mcp_config"); m && m->is_object() && !m->as_object().empty()) {
        t.mcp_config = m->as_object();
        auto dir = std::filesystem::path(kind_.host().data_dir()) / "mcp";
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        auto file = dir / ("turn-" + (t.turn_id.empty() ? std::string("x") : t.turn_id) + ".json");
        if (auto error = write_file_atomic(file, json::serialize(t.mcp_config), 0600); !error.empty())
            throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot write the MCP config for the agent: " + error);
        t.mcp_config_file = file.string();
    }
    cmd.path = found.path;
    cmd.cwd = t.cwd;
    cmd.argv = kind_.driver().argv(found.path, config_, t);
    Timing timing;
    timing.interrupt_grace = config_.interrupt_grace;
    kind_.runner().start(std::move(turn), cmd, kind_.driver().parser(),
                         kind_.driver().kind() + ":" + info_.name + " turn " + t.turn_id, timing);
}

inline void DriverInstance::interrupt_turn(coffer_turn* turn) { kind_.runner().interrupt(turn); }

// Disabling the agent stops what it runs.
inline void DriverInstance::stop() { kind_.runner().interrupt_all(); }

}  // namespace coffer::agent
