#include "channel.hpp"

#include "channel_common/supervisor.hpp"

#include <coffer/child_process.hpp>
#include <coffer/credref.hpp>
#include <coffer/json_fields.hpp>

namespace coffer::external {

using channel_common::Spec;
using channel_common::Supervisor;

struct ExternalChannel::Shared {
    std::mutex mu;
    std::string health = "not receiving: not started";
    json::object adapter_status;  // the adapter's last health message, without "type"
};

ExternalChannel::ExternalChannel(const sdk::Host& host)
    : host_(host), loop_([&host](const std::string& e) { host.error("external: " + e); }), shared_(std::make_shared<Shared>()) {}

ExternalChannel::~ExternalChannel() { channel_stop(); }

json::object ExternalChannel::channel_capabilities() { return parse_config(info().config).capabilities; }

void ExternalChannel::channel_start(sdk::Channel channel) {
    channel_stop();
    auto cfg = parse_config(info().config);
    std::vector<std::pair<std::string, std::string>> env;
    for (auto& [k, v] : cfg.env) {
        if (!credref::is_credref(v)) {
            env.emplace_back(k, v);
            continue;
        }
        auto secret = host_.resolve_credential(credref::ref_of(v));
        if (!secret.ok()) throw sdk::Error(COFFER_E_UNAVAILABLE, "the credential for env " + k + " cannot be resolved");
        env.emplace_back(k, std::move(secret.value));
    }
    Spec spec;
    spec.env = child::environment(env);
    auto found = child::resolve(cfg.command, child::env_value(spec.env, "PATH"));
    if (found.path.empty()) throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot start the adapter: " + found.error);
    spec.path = found.path;
    spec.argv.push_back(cfg.command);
    spec.argv.insert(spec.argv.end(), cfg.args.begin(), cfg.args.end());
    spec.description = "external channel adapter " + cfg.command;

    shared_ = std::make_shared<Shared>();
    loop_.start();
    auto shared = shared_;
    auto host = host_;
    auto to_loop = loop_.sender();
    auto sup = std::make_shared<Supervisor>(loop_.io(), std::move(spec), host_);
    std::weak_ptr<Supervisor> weak = sup;
    auto set_health = [shared](std::string h) {
        std::lock_guard<std::mutex> g(shared->mu);
        shared->health = std::move(h);
    };
    Supervisor::Hooks hooks;
    hooks.log = [host](const std::string& m) { host.info("external channel: " + m); };
    hooks.up = [set_health] { set_health("not receiving: the adapter started and has not reported yet"); };
    hooks.down = [set_health, host](const std::string& why) {
        set_health("not receiving: " + why);
        host.warn("external channel: " + why);
    };
    hooks.message = [shared, set_health, channel, weak, to_loop, host](json::object m) {
        auto type = json_fields::string_at(m, "type");
        if (type == "health") {
            m.erase("type");
            auto h = json_fields::string_at(m, "health");
            set_health(h.empty() ? "receiving" : h);
            std::lock_guard<std::mutex> g(shared->mu);
            shared->adapter_status = std::move(m);
        } else if (type == "inbound") {
            auto* msg = json_fields::object_at(m, "message");
            auto id = msg ? json_fields::string_at(*msg, "id") : std::string();
            auto answer = [weak, id](bool ok, const std::string& error) {
                json::object a{{"type", "ack"}, {"id", id}, {"ok", ok}};
                if (!error.empty()) a["error"] = error;
                if (auto s = weak.lock()) s->write(a);
            };
            if (!msg) return answer(false, "an inbound line needs a \"message\" object");
            auto st = channel.inbound(*msg, [to_loop, answer](coffer_status s) {
                to_loop.post([answer, s] { answer(s == COFFER_OK, s == COFFER_OK ? "" : "not kept (status " + std::to_string(s) + ")"); });
            });
            if (st != COFFER_OK) answer(false, st == COFFER_E_INVALID ? "the message is malformed" : "the channel is not receiving");
        } else if (type == "log") {
            host.info("external channel: " + json_fields::string_at(m, "message"));
        }
    };
    // The hooks refer to the supervisor only weakly; it is owned by its coroutine on the loop.
    sup->set_hooks(std::move(hooks));
    supervisor_ = sup;
    loop_.spawn(Supervisor::run(std::move(sup)));
}

void ExternalChannel::channel_stop() {
    loop_.stop();  // destroys the supervisor: the adapter's process group ends and is reaped
    std::lock_guard<std::mutex> g(shared_->mu);
    shared_->health = "not receiving: stopped";
}

void ExternalChannel::forward(const char* type, const json::object& request) {
    json::object line = request;
    line["type"] = type;
    auto weak = supervisor_;
    if (!loop_.post([weak, line = std::move(line)] {
            if (auto s = weak.lock()) s->write(line);
        }))
        throw sdk::Error(COFFER_E_UNAVAILABLE, "the channel is not started");
}

json::value ExternalChannel::status() {
    json::object out;
    {
        std::lock_guard<std::mutex> g(shared_->mu);
        out = shared_->adapter_status;
        out["health"] = shared_->health;
    }
    if (auto s = supervisor_.lock()) {
        out["pid"] = s->pid();
        out["restarts"] = s->restarts();
    }
    return out;
}

}  // namespace coffer::external
