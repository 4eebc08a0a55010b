// One Telegram bot as a channel instance: its capabilities, and between channel_start and
// channel_stop an event loop of its own running the poller and the outbox.
#pragma once

#include "config.hpp"
#include "stats.hpp"

#include "channel_common/loop.hpp"

#include <coffer/sdk.hpp>

#include <memory>

namespace coffer::telegram {

class Outbox;

class TelegramChannel : public sdk::Instance {
public:
    explicit TelegramChannel(const sdk::Host& host);
    ~TelegramChannel() override;

    void update(const json::object& config) override;
    json::object channel_capabilities() override;
    void channel_start(sdk::Channel channel) override;
    void channel_stop() override;
    void stop() override { channel_stop(); }
    void channel_send(const json::object& request) override;
    void channel_edit(const json::object& request) override;
    void channel_typing(const json::object& request) override;
    json::value status() override;

private:
    void enqueue(int kind, const json::object& request);

    const sdk::Host& host_;
    channel_common::Loop loop_;
    std::shared_ptr<Stats> stats_ = std::make_shared<Stats>();
    std::weak_ptr<Outbox> outbox_;  // owned by its coroutine on the loop
    bool started_ = false;
};

}  // namespace coffer::telegram
