#include "sender.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace coffer::seatalk {

namespace asio = boost::asio;

namespace {
constexpr std::int64_t kGroupTooLargeForTyping = 7003;
}

Sender::Sender(asio::io_context& io, std::shared_ptr<Client> client, std::shared_ptr<SeaTalkState> state,
               std::function<void(const std::string&)> warn)
    : client_(std::move(client)), state_(std::move(state)), warn_(std::move(warn)), wake_(io) {}

void Sender::push(SendJob job) {
    queue_.push_back(std::move(job));
    wake_.cancel();
}

asio::awaitable<void> Sender::run(std::shared_ptr<Sender> self) {
    for (;;) {
        if (self->queue_.empty()) {
            self->wake_.expires_at(asio::steady_timer::time_point::max());
            boost::system::error_code ec;
            co_await self->wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            continue;
        }
        auto job = std::move(self->queue_.front());
        self->queue_.pop_front();
        bool group;
        {
            std::lock_guard<std::mutex> g(self->state_->mu);
            group = self->state_->groups.count(job.chat) > 0;
        }
        json::object body{{group ? "group_id" : "employee_code", job.chat}};
        std::string path;
        if (job.typing) {
            path = group ? "/messaging/v2/group_chat_typing" : "/messaging/v2/single_chat_typing";
            if (!job.thread.empty()) body["thread_id"] = job.thread;
        } else {
            path = group ? "/messaging/v2/group_chat" : "/messaging/v2/single_chat";
            json::object message{{"tag", "text"}, {"text", json::object{{"format", 1}, {"content", job.text}}}};
            if (!job.thread.empty()) message["thread_id"] = job.thread;  // inside "message": a top-level one is ignored
            body["message"] = std::move(message);
        }
        auto r = co_await self->client_->call(path, std::move(body));
        bool ok = r.ok || (job.typing && r.code == kGroupTooLargeForTyping);
        {
            std::lock_guard<std::mutex> g(self->state_->mu);
            self->state_->token_refreshes = self->client_->token_refreshes();
            self->state_->rate_limited = self->client_->rate_limited();
            if (ok) ++(job.typing ? self->state_->typing : self->state_->sent);
            else if (!job.typing) ++self->state_->send_failed;
        }
        if (!ok && self->warn_) self->warn_("seatalk: " + r.error + (r.request_id.empty() ? "" : " (x-rid " + r.request_id + ")"));
    }
}

}  // namespace coffer::seatalk
