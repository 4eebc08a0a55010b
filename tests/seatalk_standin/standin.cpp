#include "standin.hpp"

#include "loopback_server.hpp"

#include <coffer/json_fields.hpp>
#include <coffer/sha256.hpp>

#include <ctime>

namespace coffer::seatalk_standin {

namespace asio = boost::asio;

struct Standin::Impl {
    std::unique_ptr<test::LoopbackServer> server;  // first: destroyed last
    std::string app_id, app_secret;
    mutable std::mutex mu;
    std::string token;  // the one accepted now
    int issued = 0, rid = 0, limited = 0;
    std::vector<Call> calls;

    json::object answer(const test::ServerRequest& req, json::object& body) {
        if (req.target == "/auth/app_access_token") {
            if (json_fields::string_at(body, "app_id") != app_id || json_fields::string_at(body, "app_secret") != app_secret)
                return {{"code", 3}, {"message", "invalid app credentials"}};
            token = "t-" + std::to_string(++issued);
            return {{"code", 0}, {"app_access_token", token}, {"expire", static_cast<std::int64_t>(std::time(nullptr)) + 7200}};
        }
        auto auth = req.headers.count("authorization") ? req.headers.at("authorization") : std::string();
        if (token.empty() || auth != "Bearer " + token) return {{"code", 100}, {"message", "access token expired"}};
        if (limited > 0) {
            --limited;
            return {{"code", 101}, {"message", "rate limit exceeded"}};
        }
        if (req.target == "/messaging/v2/single_chat" || req.target == "/messaging/v2/group_chat") {
            auto* m = json_fields::object_at(body, "message");
            auto* t = m ? json_fields::object_at(*m, "text") : nullptr;
            if (!t || json_fields::string_at(*t, "content").empty()) return {{"code", 102}, {"message", "missing mandatory fields"}};
            return {{"code", 0}, {"message_id", "m-" + std::to_string(calls.size())}};
        }
        if (req.target == "/messaging/v2/single_chat_typing" || req.target == "/messaging/v2/group_chat_typing") return {{"code", 0}};
        return {{"code", 404}, {"message", "not found"}};
    }

    test::ServerResponse handle(const test::ServerRequest& req) {
        boost::system::error_code ec;
        auto v = json::parse(req.body, ec);
        json::object body = !ec && v.is_object() ? v.as_object() : json::object{};
        std::lock_guard<std::mutex> g(mu);
        auto a = answer(req, body);
        calls.push_back({req.target, req.headers.count("authorization") ? req.headers.at("authorization") : "", body,
                         a.at("code").as_int64()});
        return {200, json::serialize(a), {{"x-rid", "rid-" + std::to_string(++rid)}}};
    }
};

Standin::Standin(std::string app_id, std::string app_secret) : impl_(std::make_unique<Impl>()) {
    impl_->app_id = std::move(app_id);
    impl_->app_secret = std::move(app_secret);
    impl_->server = std::make_unique<test::LoopbackServer>([impl = impl_.get()](test::ServerRequest r) -> asio::awaitable<test::ServerResponse> {
        co_return impl->handle(r);
    });
}

Standin::~Standin() = default;

std::string Standin::base_url() const { return "http://127.0.0.1:" + std::to_string(impl_->server->port()); }

void Standin::expire_token() {
    std::lock_guard<std::mutex> g(impl_->mu);
    impl_->token = "expired-" + impl_->token;
}

void Standin::rate_limit(int times) {
    std::lock_guard<std::mutex> g(impl_->mu);
    impl_->limited = times;
}

std::vector<Call> Standin::calls(const std::string& path) const {
    std::lock_guard<std::mutex> g(impl_->mu);
    std::vector<Call> out;
    for (auto& c : impl_->calls)
        if (path.empty() || c.path == path) out.push_back(c);
    return out;
}

int Standin::tokens_issued() const {
    std::lock_guard<std::mutex> g(impl_->mu);
    return impl_->issued;
}

test::HttpResult send_event(std::uint16_t port, const std::string& channel, const std::string& body, const std::string& secret,
                            const std::string& signature) {
    auto sig = signature.empty() ? sha256_hex(body + secret) : signature;
    return test::http_request(port, "POST", "/seatalk/" + channel, body, {{"Content-Type", "application/json"}, {"Signature", sig}});
}

std::string dm_event(const std::string& event_id, const std::string& employee_code, const std::string& seatalk_id,
                     const std::string& text, const std::string& thread_id) {
    json::object message{{"message_id", "msg-" + event_id}, {"tag", "text"}, {"text", json::object{{"content", text}}}};
    if (!thread_id.empty()) message["thread_id"] = thread_id;
    return json::serialize(json::object{
        {"event_id", event_id},
        {"event_type", "message_from_bot_subscriber"},
        {"timestamp", static_cast<std::int64_t>(std::time(nullptr))},
        {"app_id", "app-1"},
        {"event", json::object{{"seatalk_id", seatalk_id}, {"employee_code", employee_code}, {"email", "owner@example.com"}, {"message", message}}}});
}

}  // namespace coffer::seatalk_standin
