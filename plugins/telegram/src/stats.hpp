// What status() shows about a running Telegram channel: health ("receiving" or "not receiving:
// <why>"), the committed offset and counters. Written on the channel's loop, read by the host's
// thread; never holds the token (every text is redacted before it gets here).
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace coffer::telegram {

struct Counters {
    std::int64_t polls = 0, updates = 0, conflicts = 0, rate_limited = 0, poll_failures = 0;
    std::int64_t sent = 0, edited = 0, typing = 0, send_failed = 0, plain_retries = 0, send_retries = 0;
};

class Stats {
public:
    void set_health(std::string health);
    void set_offset(std::int64_t offset);
    // Changes counters under the lock.
    template <typename F> void count(F&& f) {
        std::lock_guard<std::mutex> g(mu_);
        f(counters_);
    }
    void set_last_error(std::string error);
    boost::json::object to_json() const;

private:
    mutable std::mutex mu_;
    std::string health_ = "not receiving: starting";
    std::string last_error_;
    std::optional<std::int64_t> offset_;
    Counters counters_;
};

}  // namespace coffer::telegram
