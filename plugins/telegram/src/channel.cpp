#include "channel.hpp"

#include "bot_api.hpp"
#include "outbox.hpp"
#include "poller.hpp"

#include "channel_common/http_client.hpp"
#include "channel_common/kind.hpp"

namespace coffer::telegram {

TelegramChannel::TelegramChannel(const sdk::Host& host)
    : host_(host), loop_([&host](const std::string& e) { host.error("telegram: " + e); }) {}

TelegramChannel::~TelegramChannel() { channel_stop(); }

void TelegramChannel::update(const json::object& config) {
    (void)parse_config(config);  // throws when invalid
    info_.config = config;       // takes effect at the next channel start (the host restarts it)
}

json::object TelegramChannel::channel_capabilities() {
    // Telegram: edits, typing for ~5 s, 4,096 UTF-16 units after entity parsing, HTML parse mode.
    return channel_common::Capabilities{.edit = true, .typing = true, .typing_ttl_ms = 5000, .max_text = 4096,
                                        .text_units = "utf16", .markdown = "html", .ingress = "polling"}
        .to_json();
}

void TelegramChannel::channel_start(sdk::Channel channel) {
    channel_stop();
    auto cfg = parse_config(info().config);
    std::string why;
    auto endpoint = channel_common::parse_endpoint(cfg.api_base, why);
    if (!endpoint) throw sdk::Error(COFFER_E_INVALID, "api_base: " + why);
    auto token = host_.resolve_credential(cfg.token_ref);
    if (!token.ok()) {
        auto msg = "the bot token credential '" + cfg.token_ref + "' cannot be resolved" +
                   (token.status == COFFER_E_NOT_FOUND ? std::string(" (it does not exist)") : std::string());
        stats_->set_health("not receiving: " + msg);
        throw sdk::Error(COFFER_E_UNAVAILABLE, msg);
    }
    if (token.value.empty() || token.value.find_first_of("/?#% \r\n") != std::string::npos) {
        stats_->set_health("not receiving: the bot token credential is not a token");
        throw sdk::Error(COFFER_E_INVALID, "the bot token credential '" + cfg.token_ref + "' is not a bot token");
    }
    auto api = std::make_shared<const BotApi>(*endpoint, std::move(token.value));
    stats_ = std::make_shared<Stats>();
    loop_.start();
    auto warn = [host = host_](const std::string& m) { host.warn(m); };  // texts arrive redacted
    auto poller = std::make_shared<Poller>(loop_.io(), api, channel, stats_, loop_.sender(), warn);
    auto outbox = std::make_shared<Outbox>(loop_.io(), api, stats_, warn);
    outbox_ = outbox;
    loop_.spawn(Poller::run(std::move(poller)));
    loop_.spawn(Outbox::run(std::move(outbox)));
    started_ = true;
}

void TelegramChannel::channel_stop() {
    if (!started_) return;
    started_ = false;
    loop_.stop();  // cancels a pending long poll and queued sends at once
    stats_->set_health("not receiving: stopped");
}

void TelegramChannel::enqueue(int kind, const json::object& request) {
    auto job = job_from_request(static_cast<OutJob::Kind>(kind), request);
    auto outbox = outbox_;
    if (!started_ || !loop_.post([outbox, job = std::move(job)]() mutable {
            if (auto o = outbox.lock()) o->push(std::move(job));
        }))
        throw sdk::Error(COFFER_E_UNAVAILABLE, "the channel is not started");
}

void TelegramChannel::channel_send(const json::object& r) { enqueue(static_cast<int>(OutJob::Kind::send), r); }
void TelegramChannel::channel_edit(const json::object& r) { enqueue(static_cast<int>(OutJob::Kind::edit), r); }
void TelegramChannel::channel_typing(const json::object& r) { enqueue(static_cast<int>(OutJob::Kind::typing), r); }

json::value TelegramChannel::status() { return stats_->to_json(); }

}  // namespace coffer::telegram
