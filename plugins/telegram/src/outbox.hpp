// Everything the channel sends, one call at a time on the channel's loop, in the host's order:
// sendMessage (HTML, again as plain text when Telegram cannot parse the entities),
// editMessageText ("message is not modified" is success; a queued edit of the same message is
// replaced by a newer one) and sendChatAction typing. A 429 pauses that chat for retry_after and
// the call is made again (typing is dropped instead); a transport failure or a 5xx is retried a
// few times with backoff. The host's `ref` names a message; the Telegram message id it got is
// remembered for the edits.
#pragma once

#include "bot_api.hpp"
#include "stats.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace coffer::telegram {

struct OutJob {
    enum class Kind { send, edit, typing } kind = Kind::send;
    std::string chat, ref, text, plain, format, thread;
    int attempts = 0;
};

// {"chat","ref","text","format","plain","thread"?} → a job; throws sdk::Error(COFFER_E_INVALID).
OutJob job_from_request(OutJob::Kind kind, const json::object& request);

class Outbox : public std::enable_shared_from_this<Outbox> {
public:
    using Log = std::function<void(const std::string&)>;
    Outbox(boost::asio::io_context& io, std::shared_ptr<const BotApi> api, std::shared_ptr<Stats> stats, Log warn);

    // Loop thread.
    void push(OutJob job);
    static boost::asio::awaitable<void> run(std::shared_ptr<Outbox> self);

private:
    enum class Outcome { done, again, failed };
    boost::asio::awaitable<Outcome> attempt(OutJob& job);
    boost::asio::awaitable<void> sleep(std::chrono::milliseconds d);
    json::object params_for(const OutJob& job, bool plain) const;
    void remember(const std::string& ref, std::int64_t message_id);

    std::shared_ptr<const BotApi> api_;
    std::shared_ptr<Stats> stats_;
    Log warn_;
    boost::asio::steady_timer wake_, pause_;
    std::deque<OutJob> queue_;
    std::map<std::string, std::int64_t> message_ids_;  // ref → Telegram message_id
    std::deque<std::string> ref_order_;                 // oldest first, to bound the map
    std::map<std::string, std::chrono::steady_clock::time_point> paused_until_;  // chat → end of a 429 pause
};

}  // namespace coffer::telegram
