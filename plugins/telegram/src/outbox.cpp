#include "outbox.hpp"

#include "channel_common/backoff.hpp"

#include <coffer/json_fields.hpp>
#include <coffer/sdk.hpp>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace coffer::telegram {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

constexpr milliseconds kCallTimeout{15000};
constexpr int kMaxAttempts = 5;
constexpr std::size_t kRememberedRefs = 2000;

bool parse_error(const ApiResult& r) { return r.error_code == 400 && r.description_has("can't parse entities"); }

}  // namespace

OutJob job_from_request(OutJob::Kind kind, const json::object& r) {
    OutJob j;
    j.kind = kind;
    j.chat = json_fields::string_at(r, "chat");
    j.ref = json_fields::string_at(r, "ref");
    j.text = json_fields::string_at(r, "text");
    j.plain = json_fields::string_at(r, "plain");
    j.format = json_fields::string_at(r, "format");
    j.thread = json_fields::string_at(r, "thread");
    if (j.chat.empty()) throw sdk::Error(COFFER_E_INVALID, "\"chat\" is required");
    if (kind != OutJob::Kind::typing) {
        if (j.ref.empty()) throw sdk::Error(COFFER_E_INVALID, "\"ref\" is required");
        if (j.text.empty() && j.plain.empty()) throw sdk::Error(COFFER_E_INVALID, "\"text\" is required");
    }
    return j;
}

Outbox::Outbox(asio::io_context& io, std::shared_ptr<const BotApi> api, std::shared_ptr<Stats> stats, Log warn)
    : api_(std::move(api)), stats_(std::move(stats)), warn_(std::move(warn)), wake_(io), pause_(io) {
    wake_.expires_at(Clock::time_point::max());
}

void Outbox::push(OutJob job) {
    if (job.kind == OutJob::Kind::edit) {
        // Only the newest text of a message matters: replace a queued edit instead of queueing another.
        for (auto& q : queue_)
            if (q.kind == OutJob::Kind::edit && q.ref == job.ref) {
                q = std::move(job);
                return;
            }
    }
    if (job.kind == OutJob::Kind::typing)
        for (auto& q : queue_)
            if (q.kind == OutJob::Kind::typing && q.chat == job.chat) return;
    queue_.push_back(std::move(job));
    wake_.cancel();
}

asio::awaitable<void> Outbox::sleep(milliseconds d) {
    pause_.expires_after(d);
    boost::system::error_code ec;
    co_await pause_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> Outbox::run(std::shared_ptr<Outbox> self) {
    channel_common::Backoff backoff(milliseconds(500), milliseconds(8000));
    for (;;) {
        if (self->queue_.empty()) {
            self->wake_.expires_at(Clock::time_point::max());
            boost::system::error_code ec;
            co_await self->wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            continue;
        }
        auto job = std::move(self->queue_.front());
        self->queue_.pop_front();
        if (auto p = self->paused_until_.find(job.chat); p != self->paused_until_.end()) {
            auto now = Clock::now();
            if (p->second > now) {
                if (job.kind == OutJob::Kind::typing) continue;  // stale by the time the pause ends
                co_await self->sleep(std::chrono::duration_cast<milliseconds>(p->second - now));
            }
            self->paused_until_.erase(job.chat);
        }
        auto outcome = co_await self->attempt(job);
        if (outcome == Outcome::again && ++job.attempts < kMaxAttempts) {
            self->stats_->count([](Counters& c) { ++c.send_retries; });
            if (!self->paused_until_.count(job.chat)) co_await self->sleep(backoff.next());
            self->queue_.push_front(std::move(job));
            continue;
        }
        if (outcome != Outcome::done && job.kind != OutJob::Kind::typing)
            self->stats_->count([](Counters& c) { ++c.send_failed; });
        backoff.reset();
    }
}

json::object Outbox::params_for(const OutJob& job, bool plain) const {
    json::object p{{"chat_id", job.chat}};
    if (job.kind == OutJob::Kind::typing) {
        p["action"] = "typing";
    } else {
        if (plain) {
            p["text"] = job.plain.empty() ? job.text : job.plain;
        } else if (job.format == "html" && !job.text.empty()) {
            p["text"] = job.text;
            p["parse_mode"] = "HTML";
        } else {
            p["text"] = job.text.empty() ? job.plain : job.text;
        }
    }
    if (!job.thread.empty() && job.kind != OutJob::Kind::edit) {
        try {
            p["message_thread_id"] = std::stoll(job.thread);
        } catch (...) {
        }
    }
    return p;
}

void Outbox::remember(const std::string& ref, std::int64_t message_id) {
    if (!message_ids_.count(ref)) ref_order_.push_back(ref);
    message_ids_[ref] = message_id;
    while (ref_order_.size() > kRememberedRefs) {
        message_ids_.erase(ref_order_.front());
        ref_order_.pop_front();
    }
}

asio::awaitable<Outbox::Outcome> Outbox::attempt(OutJob& job) {
    const char* method = job.kind == OutJob::Kind::send ? "sendMessage"
                         : job.kind == OutJob::Kind::edit ? "editMessageText"
                                                          : "sendChatAction";
    auto params = params_for(job, false);
    if (job.kind == OutJob::Kind::edit) {
        auto it = message_ids_.find(job.ref);
        if (it == message_ids_.end()) {
            if (warn_) warn_("telegram: an edit of a message that was never sent (ref " + job.ref + ")");
            co_return Outcome::failed;
        }
        params["message_id"] = it->second;
    }
    auto r = co_await api_->call(method, params, kCallTimeout);
    if (!r.ok && parse_error(r) && job.kind != OutJob::Kind::typing) {
        // Telegram refused the markup: the same words as plain text.
        stats_->count([](Counters& c) { ++c.plain_retries; });
        auto plain = params_for(job, true);
        if (params.contains("message_id")) plain["message_id"] = params["message_id"];
        r = co_await api_->call(method, plain, kCallTimeout);
    }
    if (r.ok) {
        if (job.kind == OutJob::Kind::send) {
            if (r.result.is_object())
                if (auto id = json_fields::number_at(r.result.as_object(), "message_id"); id.is_int64()) remember(job.ref, id.as_int64());
            stats_->count([](Counters& c) { ++c.sent; });
        } else if (job.kind == OutJob::Kind::edit) {
            stats_->count([](Counters& c) { ++c.edited; });
        } else {
            stats_->count([](Counters& c) { ++c.typing; });
        }
        co_return Outcome::done;
    }
    if (job.kind == OutJob::Kind::edit && r.error_code == 400 && r.description_has("message is not modified")) {
        stats_->count([](Counters& c) { ++c.edited; });
        co_return Outcome::done;
    }
    if (r.answered() && r.error_code == 429) {
        stats_->count([](Counters& c) { ++c.rate_limited; });
        paused_until_[job.chat] = Clock::now() + std::chrono::seconds(std::max<std::int64_t>(1, r.retry_after));
        co_return job.kind == OutJob::Kind::typing ? Outcome::failed : Outcome::again;
    }
    auto why = std::string(method) + " to chat " + job.chat + ": " + r.why();
    stats_->set_last_error(why);
    if (warn_) warn_("telegram: " + why);
    if (!r.answered() || r.error_code >= 500) co_return job.kind == OutJob::Kind::typing ? Outcome::failed : Outcome::again;
    co_return Outcome::failed;
}

}  // namespace coffer::telegram
