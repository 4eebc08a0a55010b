#include "channel.hpp"

#include "client.hpp"
#include "events.hpp"
#include "sender.hpp"

#include "channel_common/kind.hpp"
#include "channel_common/supervisor.hpp"

#include <coffer/child_process.hpp>
#include <coffer/json_fields.hpp>

#include <filesystem>

namespace coffer::seatalk {

namespace {

// coffer-callback sits beside the daemon's executable (bin/ in the build and in an install).
std::string callback_binary() {
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("coffer-callback") : (self.parent_path() / "coffer-callback").string();
}

}  // namespace

SeaTalkChannel::SeaTalkChannel(const sdk::Host& host)
    : host_(host), loop_([&host](const std::string& e) { host.error("seatalk: " + e); }), state_(std::make_shared<SeaTalkState>()) {}

SeaTalkChannel::~SeaTalkChannel() { channel_stop(); }

json::object SeaTalkChannel::channel_capabilities() {
    // SeaTalk: no edits, a 4 s typing heartbeat, 4,096 characters of Markdown (format 1), threads.
    return channel_common::Capabilities{.typing = true, .typing_ttl_ms = 4000, .max_text = 4096, .markdown = "markdown",
                                        .threads = true, .ingress = "webhook"}
        .to_json();
}

void SeaTalkChannel::channel_start(sdk::Channel channel) {
    channel_stop();
    auto cfg = parse_config(info().config);
    state_ = std::make_shared<SeaTalkState>();
    auto fail = [&](coffer_status st, const std::string& why) {
        std::lock_guard<std::mutex> g(state_->mu);
        state_->health = "not receiving: " + why;
        throw sdk::Error(st, why);
    };
    auto app_secret = host_.resolve_credential(cfg.app_secret_ref);
    auto signing = host_.resolve_credential(cfg.signing_secret_ref);
    if (!app_secret.ok()) fail(COFFER_E_UNAVAILABLE, "the app secret credential '" + cfg.app_secret_ref + "' cannot be resolved");
    if (!signing.ok()) fail(COFFER_E_UNAVAILABLE, "the signing secret credential '" + cfg.signing_secret_ref + "' cannot be resolved");
    if (signing.value.empty()) fail(COFFER_E_INVALID, "configuration error: the signing secret is empty");
    std::string why;
    auto endpoint = channel_common::parse_endpoint(cfg.api_base, why);
    if (!endpoint) fail(COFFER_E_INVALID, "api_base: " + why);

    channel_common::Spec spec;
    spec.path = callback_binary();
    spec.argv = {spec.path, "--channel", info().name, "--port", std::to_string(cfg.callback_port)};
    // Events SeaTalk was told we have, until the host keeps them (callback/spool.hpp): per channel
    // resource, in the plugin's data folder.
    if (auto data = host_.data_dir(); !data.empty()) {
        spec.argv.push_back("--spool");
        spec.argv.push_back((std::filesystem::path(data) / "callback-spool" / info().uid).string());
    }
    spec.env = child::environment({{"COFFER_CALLBACK_SECRET", signing.value}});
    spec.description = "coffer-callback for channel " + info().name;

    loop_.start();
    auto state = state_;
    auto host = host_;
    auto warn = [host](const std::string& m) { host.warn(m); };
    auto client = std::make_shared<Client>(loop_.io(), *endpoint, cfg.app_id, std::move(app_secret.value));
    auto sender = std::make_shared<Sender>(loop_.io(), client, state, warn);
    sender_ = sender;
    auto set_health = [state](std::string h) {
        std::lock_guard<std::mutex> g(state->mu);
        state->health = std::move(h);
    };
    channel_common::Supervisor::Hooks hooks;
    hooks.log = [host](const std::string& m) { host.info("seatalk: " + m); };
    hooks.up = [set_health] { set_health("not receiving: coffer-callback is starting"); };
    hooks.down = [set_health, warn](const std::string& w) {
        set_health("not receiving: coffer-callback: " + w);
        warn("seatalk: coffer-callback: " + w);
    };
    // The host's ack of a spooled event reaches coffer-callback through the loop (any thread; a
    // post after the channel stopped is dropped and the event stays spooled for the next run).
    auto to_loop = loop_.sender();
    auto supervisor = std::make_shared<std::weak_ptr<channel_common::Supervisor>>();
    auto spool_done = [to_loop, supervisor](std::string spooled) {
        if (spooled.empty()) return;
        to_loop.post([supervisor, spooled = std::move(spooled)] {
            if (auto sup = supervisor->lock()) sup->write(json::object{{"type", "done"}, {"spool", spooled}});
        });
    };
    hooks.message = [state, set_health, channel, warn, spool_done](json::object m) {
        auto type = json_fields::string_at(m, "type");
        if (type == "listening") {
            {
                std::lock_guard<std::mutex> g(state->mu);
                state->callback_port = json_fields::number_at(m, "port").is_int64() ? m.at("port").as_int64() : 0;
            }
            set_health("receiving");
            return;
        }
        auto* body = json_fields::object_at(m, "body");
        if (type != "event" || !body) return;
        auto env = to_envelope(*body);
        {
            std::lock_guard<std::mutex> g(state->mu);
            ++state->events;
            if (env && json_fields::string_at(*env, "chat_type") == "group") state->groups.insert(json_fields::string_at(*env, "chat"));
        }
        auto spooled = json_fields::string_at(m, "spool");
        if (!env) return spool_done(spooled);  // not a message: nothing to keep
        // SeaTalk already has its 200 (coffer-callback kept the event, then answered); the host
        // keeps the message durably, drops a redelivered event_id, and then the spool file goes.
        auto st = channel.inbound(*env, [warn, spool_done, spooled](coffer_status s) {
            if (s != COFFER_OK) return warn("seatalk: the host did not keep an event (status " + std::to_string(s) + "); it stays spooled");
            spool_done(spooled);
        });
        if (st != COFFER_OK) warn("seatalk: the host refused an event (status " + std::to_string(st) + "); it stays spooled");
    };
    auto sup = std::make_shared<channel_common::Supervisor>(loop_.io(), std::move(spec), host_);
    sup->set_hooks(std::move(hooks));
    *supervisor = sup;
    loop_.spawn(channel_common::Supervisor::run(std::move(sup)));
    loop_.spawn(Sender::run(std::move(sender)));
}

void SeaTalkChannel::channel_stop() {
    loop_.stop();  // ends coffer-callback (its group is killed and reaped) and drops queued sends
    std::lock_guard<std::mutex> g(state_->mu);
    if (state_->health.rfind("not receiving: configuration error", 0) != 0) state_->health = "not receiving: stopped";
}

void SeaTalkChannel::enqueue(const json::object& r, bool typing) {
    SendJob job{typing, json_fields::string_at(r, "chat"), json_fields::string_at(r, "text"), json_fields::string_at(r, "thread")};
    if (job.chat.empty()) throw sdk::Error(COFFER_E_INVALID, "\"chat\" is required");
    if (!typing && job.text.empty()) throw sdk::Error(COFFER_E_INVALID, "\"text\" is required");
    auto sender = sender_;
    if (!loop_.post([sender, job = std::move(job)]() mutable {
            if (auto s = sender.lock()) s->push(std::move(job));
        }))
        throw sdk::Error(COFFER_E_UNAVAILABLE, "the channel is not started");
}

json::value SeaTalkChannel::status() { return state_->to_json(); }

}  // namespace coffer::seatalk
