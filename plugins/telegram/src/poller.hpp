// Long polling: getUpdates with a 30 s server timeout (the client waits 40 s), each text update
// handed to the host, and the offset (the next call's `offset`, which is what confirms updates
// to Telegram) advanced only past updates the host acknowledged — after its durable write. An
// update the host did not keep is delivered again. Failures (409 Conflict from a second poller,
// 429 with retry_after, transport errors) back off, capped at 30 s (or retry_after), forever;
// health says "not receiving: <why>" until a poll succeeds again.
#pragma once

#include "bot_api.hpp"
#include "stats.hpp"

#include "channel_common/backoff.hpp"

#include <coffer/handoff.hpp>
#include <coffer/sdk.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace coffer::telegram {

inline constexpr int kPollTimeoutS = 30;
inline constexpr std::chrono::seconds kPollReadTimeout{40};

class Poller : public std::enable_shared_from_this<Poller> {
public:
    using Log = std::function<void(const std::string&)>;
    Poller(boost::asio::io_context& io, std::shared_ptr<const BotApi> api, sdk::Channel channel,
           std::shared_ptr<Stats> stats, Handoff::Sender to_loop, Log warn);

    // The polling loop; runs until the loop is stopped. Owns `self` for as long.
    static boost::asio::awaitable<void> run(std::shared_ptr<Poller> self);

private:
    boost::asio::awaitable<void> poll_once();
    // Hands the batch to the host and waits for the acks; advances offset_. False: stop polling.
    boost::asio::awaitable<bool> hand_over(const json::array& updates);
    boost::asio::awaitable<void> sleep(std::chrono::milliseconds d);
    void acked(std::uint64_t batch, std::size_t index, coffer_status st);

    std::shared_ptr<const BotApi> api_;
    sdk::Channel channel_;
    std::shared_ptr<Stats> stats_;
    Handoff::Sender to_loop_;
    Log warn_;
    boost::asio::steady_timer timer_;  // sleeps and the wait for acks
    channel_common::Backoff backoff_;
    std::optional<std::int64_t> offset_;
    bool stopped_ = false;
    bool first_ = true;
    // The batch being handed over (loop thread only).
    std::uint64_t batch_ = 0;
    std::vector<std::optional<coffer_status>> acks_;
    std::size_t pending_ = 0;
};

}  // namespace coffer::telegram
