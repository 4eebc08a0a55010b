#include "poller.hpp"

#include "updates.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace coffer::telegram {

namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {
constexpr milliseconds kAckWait{60000};  // the host acks after its durable write; this is a safety net
}

Poller::Poller(asio::io_context& io, std::shared_ptr<const BotApi> api, sdk::Channel channel, std::shared_ptr<Stats> stats,
               Handoff::Sender to_loop, Log warn)
    : api_(std::move(api)), channel_(channel), stats_(std::move(stats)), to_loop_(std::move(to_loop)), warn_(std::move(warn)),
      timer_(io) {}

asio::awaitable<void> Poller::run(std::shared_ptr<Poller> self) {
    while (!self->stopped_) co_await self->poll_once();
}

asio::awaitable<void> Poller::sleep(milliseconds d) {
    timer_.expires_after(d);
    boost::system::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> Poller::poll_once() {
    // The first call (after a start or a failure) is a short poll, so that health is known at
    // once; then 30 s long polls.
    json::object params{{"timeout", first_ ? 0 : kPollTimeoutS}, {"allowed_updates", json::array{"message"}}};
    first_ = false;
    if (offset_) params["offset"] = *offset_;
    auto r = co_await api_->call("getUpdates", std::move(params), kPollReadTimeout);
    stats_->count([](Counters& c) { ++c.polls; });
    if (!r.ok) {
        milliseconds delay;
        if (r.answered() && r.error_code == 429) {
            stats_->count([](Counters& c) { ++c.rate_limited; });
            delay = backoff_.next(std::chrono::seconds(r.retry_after));
        } else {
            if (r.answered() && r.error_code == 409) stats_->count([](Counters& c) { ++c.conflicts; });
            delay = backoff_.next();
        }
        stats_->count([](Counters& c) { ++c.poll_failures; });
        auto why = "getUpdates: " + r.why() + " (retrying in " + std::to_string((delay.count() + 999) / 1000) + " s)";
        stats_->set_health("not receiving: " + why);
        stats_->set_last_error(why);
        if (warn_) warn_("telegram: not receiving: " + why);
        first_ = true;  // the retry is a short poll, so that recovery shows at once
        co_await sleep(delay);
        co_return;
    }
    backoff_.reset();
    stats_->set_health("receiving");
    if (!r.result.is_array()) co_return;
    auto& updates = r.result.as_array();
    if (updates.empty()) co_return;
    stats_->count([&](Counters& c) { c.updates += static_cast<std::int64_t>(updates.size()); });
    if (!co_await hand_over(updates)) stopped_ = true;
}

void Poller::acked(std::uint64_t batch, std::size_t index, coffer_status st) {
    if (batch != batch_ || index >= acks_.size() || acks_[index]) return;  // a late ack of a batch given up on
    acks_[index] = st;
    if (--pending_ == 0) timer_.cancel();
}

asio::awaitable<bool> Poller::hand_over(const json::array& updates) {
    ++batch_;
    std::vector<std::optional<Update>> read;
    acks_.assign(updates.size(), std::nullopt);
    pending_ = 0;
    for (std::size_t i = 0; i < updates.size(); ++i) {
        read.push_back(read_update(updates[i]));
        if (!read.back() || !read.back()->envelope) {
            acks_[i] = COFFER_OK;  // nothing for the host: confirmed like a delivered one
            continue;
        }
        ++pending_;
    }
    std::weak_ptr<Poller> weak = weak_from_this();
    for (std::size_t i = 0; i < updates.size(); ++i) {
        if (acks_[i]) continue;
        auto batch = batch_;
        auto to_loop = to_loop_;
        auto st = channel_.inbound(*read[i]->envelope, [weak, to_loop, batch, i](coffer_status s) {
            to_loop.post([weak, batch, i, s] {
                if (auto self = weak.lock()) self->acked(batch, i, s);
            });
        });
        if (st == COFFER_OK) continue;
        if (st == COFFER_E_NOT_FOUND || st == COFFER_E_UNSUPPORTED) co_return false;  // the channel was stopped
        // Refused as malformed: delivering it again would not help.
        if (warn_) warn_("telegram: the host refused update " + std::to_string(read[i]->update_id) + " (status " + std::to_string(st) + ")");
        acks_[i] = COFFER_OK;
        --pending_;
    }
    if (pending_ > 0) {
        timer_.expires_after(kAckWait);
        boost::system::error_code ec;
        co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    // The offset moves past the leading run of acknowledged updates only; the rest come again.
    bool all = true;
    for (std::size_t i = 0; i < updates.size(); ++i) {
        if (!acks_[i] || *acks_[i] != COFFER_OK) {
            all = false;
            break;
        }
        if (read[i]) offset_ = read[i]->update_id + 1;
    }
    ++batch_;  // later acks of this batch are ignored
    if (offset_) stats_->set_offset(*offset_);
    if (!all) {
        auto delay = backoff_.next();
        if (warn_) warn_("telegram: the host did not keep every update; they come again in " + std::to_string(delay.count()) + " ms");
        co_await sleep(delay);
    }
    co_return true;
}

}  // namespace coffer::telegram
