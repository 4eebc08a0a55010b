#include "client.hpp"

#include "channel_common/backoff.hpp"
#include "channel_common/redact.hpp"

#include <coffer/json_fields.hpp>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace coffer::seatalk {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
constexpr auto kEarly = 10min;  // refresh this long before the token expires
constexpr std::chrono::milliseconds kTimeout{15000};
constexpr std::int64_t kTokenExpired = 100;
constexpr std::int64_t kRateLimited = 101;
constexpr int kRateRetries = 3;
}  // namespace

Client::Client(asio::io_context& io, channel_common::Endpoint endpoint, std::string app_id, std::string app_secret)
    : endpoint_(std::move(endpoint)), app_id_(std::move(app_id)), app_secret_(std::move(app_secret)), refreshed_(io) {}

std::string Client::redact(std::string text) const {
    return channel_common::redact(channel_common::redact(std::move(text), app_secret_), token_);
}

asio::awaitable<std::string> Client::token(bool refresh, std::string& error) {
    auto fresh = [&] { return !token_.empty() && std::chrono::system_clock::now() + kEarly < expires_; };
    if (!refresh && fresh()) co_return token_;
    if (refreshing_) {  // single flight: wait for the refresh in flight
        boost::system::error_code ec;
        co_await refreshed_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (token_.empty()) error = last_refresh_error_;
        co_return token_;
    }
    refreshing_ = true;
    refreshed_.expires_at(asio::steady_timer::time_point::max());
    ++refreshes_;
    channel_common::HttpRequest rq;
    rq.path = "/auth/app_access_token";
    rq.body = json::serialize(json::object{{"app_id", app_id_}, {"app_secret", app_secret_}});
    rq.timeout = kTimeout;
    auto reply = co_await channel_common::http_request(endpoint_, std::move(rq));
    boost::system::error_code ec;
    auto v = reply.answered() ? json::parse(reply.body, ec) : json::value();
    std::string why;
    if (!reply.answered()) why = reply.error;
    else if (ec || !v.is_object()) why = "HTTP " + std::to_string(reply.status) + " without a JSON answer";
    else {
        auto& o = v.as_object();
        auto code = json_fields::number_at(o, "code");
        auto tok = json_fields::string_at(o, "app_access_token");
        auto exp = json_fields::number_at(o, "expire");
        if (!code.is_int64() || code.as_int64() != 0 || tok.empty())
            why = "code " + (code.is_int64() ? std::to_string(code.as_int64()) : std::string("?"));
        else {
            token_ = tok;
            expires_ = exp.is_int64() ? std::chrono::system_clock::time_point(std::chrono::seconds(exp.as_int64()))
                                      : std::chrono::system_clock::now() + 2h;
        }
    }
    if (!why.empty()) {
        token_.clear();
        last_refresh_error_ = redact("the app access token could not be had: " + why);
        error = last_refresh_error_;
    }
    refreshing_ = false;
    refreshed_.cancel();
    co_return token_;
}

asio::awaitable<CallResult> Client::call(std::string path, json::object body) {
    CallResult r;
    bool refreshed = false, refresh = false;
    int limited = 0;
    channel_common::Backoff backoff(1s, 8s);
    for (;;) {
        std::string error;
        auto tok = co_await token(refresh, error);
        refresh = false;
        if (tok.empty()) {
            r.error = error;
            co_return r;
        }
        channel_common::HttpRequest rq;
        rq.path = path;
        rq.body = json::serialize(body);
        rq.headers = {{"Authorization", "Bearer " + tok}};
        rq.timeout = kTimeout;
        auto reply = co_await channel_common::http_request(endpoint_, std::move(rq));
        r.request_id = reply.header("x-rid");
        if (!reply.answered()) {
            r.error = redact(path + ": " + reply.error);
            co_return r;
        }
        boost::system::error_code ec;
        auto v = json::parse(reply.body, ec);
        auto code = !ec && v.is_object() ? json_fields::number_at(v.as_object(), "code") : json::value();
        r.code = code.is_int64() ? code.as_int64() : -1;
        if (reply.status == 200 && r.code == 0) {
            r.ok = true;
            co_return r;
        }
        r.error = redact(path + ": HTTP " + std::to_string(reply.status) + ", code " + std::to_string(r.code));
        if (r.code == kTokenExpired && !refreshed) {  // 100: the token expired — a new one, and once more
            refreshed = refresh = true;
            continue;
        }
        if (r.code == kRateLimited && limited < kRateRetries) {  // 101: rate limited — wait, then again
            ++limited;
            ++rate_limited_;
            asio::steady_timer wait(co_await asio::this_coro::executor, backoff.next());
            boost::system::error_code ec2;
            co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, ec2));
            if (ec2) co_return r;  // the adapter is stopping
            continue;
        }
        if (r.code == kRateLimited) r.error += " (rate limited " + std::to_string(limited + 1) + " times in a row)";
        co_return r;
    }
}

}  // namespace coffer::seatalk
