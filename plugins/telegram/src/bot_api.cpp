#include "bot_api.hpp"

#include "channel_common/redact.hpp"

#include <coffer/json_fields.hpp>

#include <algorithm>
#include <cctype>

namespace coffer::telegram {

std::string ApiResult::why() const {
    if (!answered()) return transport_error;
    if (ok) return "ok";
    return std::to_string(error_code) + " " + (description.empty() ? std::string("(no description)") : description);
}

bool ApiResult::description_has(std::string_view words) const {
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return s;
    };
    return lower(description).find(lower(std::string(words))) != std::string::npos;
}

ApiResult parse_answer(int http_status, const std::string& body) {
    ApiResult r;
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec || !v.is_object() || !v.as_object().contains("ok") || !v.as_object().at("ok").is_bool()) {
        r.error_code = http_status;
        r.description = "HTTP " + std::to_string(http_status) + " without a Bot API answer";
        return r;
    }
    auto& o = v.as_object();
    r.ok = o.at("ok").as_bool();
    if (r.ok) {
        r.result = o.contains("result") ? o.at("result") : json::value(nullptr);
        return r;
    }
    auto code = json_fields::number_at(o, "error_code");
    r.error_code = code.is_int64() ? static_cast<int>(code.as_int64()) : http_status;
    r.description = json_fields::string_at(o, "description");
    if (auto* p = json_fields::object_at(o, "parameters")) {
        auto ra = json_fields::number_at(*p, "retry_after");
        if (ra.is_int64()) r.retry_after = std::max<std::int64_t>(0, ra.as_int64());
    }
    return r;
}

std::string BotApi::redact(std::string text) const { return channel_common::redact(std::move(text), token_, "<token>"); }

boost::asio::awaitable<ApiResult> BotApi::call(std::string method, json::object params, std::chrono::milliseconds timeout) const {
    channel_common::HttpRequest rq;
    rq.path = "/bot" + token_ + "/" + method;
    rq.body = json::serialize(params);
    rq.timeout = timeout;
    auto reply = co_await channel_common::http_request(endpoint_, std::move(rq));
    ApiResult r;
    if (!reply.answered()) {
        r.transport_error = redact(method + ": " + reply.error);
        co_return r;
    }
    r = parse_answer(reply.status, reply.body);
    r.description = redact(std::move(r.description));
    co_return r;
}

}  // namespace coffer::telegram
