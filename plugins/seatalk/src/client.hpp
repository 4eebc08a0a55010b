// The SeaTalk Open Platform, as the adapter calls it: the app access token
// (POST /auth/app_access_token → {"code":0,"app_access_token","expire":<unix s>}) cached and
// refreshed ten minutes before it expires, by one request at a time however many calls want it
// (single flight); calls with "Authorization: Bearer <token>", where code 100 (token expired)
// refreshes the token and retries once, and code 101 (rate limited) waits with a capped backoff
// (1 s, 2 s, 4 s, ±20 %) and retries, three times at most. Secrets never appear in the texts it
// hands out.
#pragma once

#include "channel_common/http_client.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <string>

namespace coffer::seatalk {

namespace json = boost::json;

struct CallResult {
    bool ok = false;      // HTTP 200 and code 0
    std::int64_t code = -1;
    std::string error;    // why not, redacted
    std::string request_id;  // x-rid, for the log
};

class Client {
public:
    Client(boost::asio::io_context& io, channel_common::Endpoint endpoint, std::string app_id, std::string app_secret);

    // POST `path` with `body`; the token handled as described above.
    boost::asio::awaitable<CallResult> call(std::string path, json::object body);
    std::int64_t token_refreshes() const { return refreshes_.load(); }
    std::int64_t rate_limited() const { return rate_limited_.load(); }  // code 101 answers seen

private:
    // The current token ("" with `error` when none could be had); a new one when `refresh`.
    boost::asio::awaitable<std::string> token(bool refresh, std::string& error);
    std::string redact(std::string text) const;

    channel_common::Endpoint endpoint_;
    std::string app_id_, app_secret_;
    std::string token_;
    std::chrono::system_clock::time_point expires_{};
    bool refreshing_ = false;
    boost::asio::steady_timer refreshed_;  // waiters of the one refresh in flight
    std::string last_refresh_error_;
    std::atomic<std::int64_t> refreshes_{0}, rate_limited_{0};
};

}  // namespace coffer::seatalk
