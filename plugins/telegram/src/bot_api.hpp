// The Bot API, one method call at a time: POST https://api.telegram.org/bot<TOKEN>/<method>
// with a JSON body, answered {"ok":true,"result":…} or {"ok":false,"error_code":N,
// "description":"…","parameters":{"retry_after":S}}. The token sits in the URL path, so it is
// never written anywhere: every text this class hands out has it replaced.
#pragma once

#include "channel_common/http_client.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace coffer::telegram {

namespace json = boost::json;

struct ApiResult {
    bool ok = false;
    int error_code = 0;          // Telegram's, or the HTTP status when the body was not an answer; 0: no answer
    std::string description;     // redacted
    std::int64_t retry_after = 0;  // seconds (429)
    json::value result;
    std::string transport_error;   // redacted; set when no answer came

    bool answered() const { return transport_error.empty(); }
    // "409 Conflict: terminated by other getUpdates request…", or the transport failure.
    std::string why() const;
    bool description_has(std::string_view words) const;
};

class BotApi {
public:
    BotApi(channel_common::Endpoint endpoint, std::string token) : endpoint_(std::move(endpoint)), token_(std::move(token)) {}

    boost::asio::awaitable<ApiResult> call(std::string method, json::object params, std::chrono::milliseconds timeout) const;
    // `text` with the token replaced.
    std::string redact(std::string text) const;

private:
    channel_common::Endpoint endpoint_;
    std::string token_;
};

// Parses an answer's body (exposed for the unit tests).
ApiResult parse_answer(int http_status, const std::string& body);

}  // namespace coffer::telegram
