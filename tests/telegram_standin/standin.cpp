#include "standin.hpp"

#include "loopback_server.hpp"
#include "telegram_html.hpp"

#include <coffer/json_fields.hpp>
#include <coffer/utf8.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <condition_variable>
#include <iterator>
#include <ctime>

namespace coffer::telegram_standin {

namespace asio = boost::asio;
using asio::use_awaitable;

namespace {

constexpr std::int64_t kBotId = 7000000001;
constexpr const char* kNotModified =
    "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a "
    "current content and reply markup of the message";

struct Answer {
    int status = 200;
    json::value body;
};

Answer ok(json::value result) { return {200, json::object{{"ok", true}, {"result", std::move(result)}}}; }

Answer error(const Failure& f) {
    json::object o{{"ok", false}, {"error_code", f.code}, {"description", f.description}};
    if (f.retry_after > 0) o["parameters"] = json::object{{"retry_after", f.retry_after}};
    return {f.code, std::move(o)};
}

// A chat id as Telegram takes it (an integer or its decimal text), as text; "" when absent.
std::string id_text(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    if (!v) return {};
    if (v->is_int64()) return std::to_string(v->as_int64());
    if (v->is_string()) return std::string(v->as_string());
    return {};
}

json::value id_value(const std::string& id) {
    try {
        return json::value(std::stoll(id));
    } catch (...) {
        return json::value(id);
    }
}

struct Waiter {
    asio::steady_timer timer;
    bool conflicted = false;
    explicit Waiter(asio::io_context& io) : timer(io) {}
};

}  // namespace

struct Standin::Impl {
    std::unique_ptr<coffer::test::LoopbackServer> server;  // first: destroyed last, after the timers below
    std::string token;

    mutable std::mutex mu;
    mutable std::condition_variable changed;
    std::deque<json::object> updates;
    std::int64_t next_update = 500000001, next_message = 1, confirmed = 0;
    std::map<std::string, std::deque<Failure>> failures;  // by method

    // The next scripted failure of `method` (under mu).
    std::optional<Failure> next_failure(const std::string& method) {
        auto& q = failures[method];
        if (q.empty()) return std::nullopt;
        auto f = q.front();
        q.pop_front();
        return f;
    }
    int refuse_markup = 0;
    std::string refuse_containing;
    std::vector<Call> calls;
    std::vector<Message> messages;
    std::vector<std::string> lines;

    std::shared_ptr<Waiter> waiter;  // the pending long poll (I/O thread only)

    void record(const std::string& method, const json::object& params, const Answer& a) {
        Call c{method, params, a.status, {}, Clock::now()};
        if (a.body.is_object())
            if (auto* d = a.body.as_object().if_contains("description"); d && d->is_string()) c.description = std::string(d->as_string());
        {
            std::lock_guard<std::mutex> g(mu);
            calls.push_back(std::move(c));
        }
        changed.notify_all();
    }

    // Checks the markup of a text to send or edit; the visible text, or an error answer.
    std::optional<Answer> check_text(const json::object& p, std::string& visible, std::string& mode) {
        auto text = json_fields::string_at(p, "text");
        mode = json_fields::string_at(p, "parse_mode");
        if (text.empty()) return error({400, "Bad Request: message text is empty"});
        visible = text;
        if (!mode.empty()) {
            if (refuse_markup > 0 && text.find(refuse_containing) != std::string::npos) {
                --refuse_markup;
                return error({400, "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0"});
            }
            if (mode == "HTML") {
                auto parsed = parse_html(text);
                if (!parsed.error.empty()) return error({400, "Bad Request: can't parse entities: " + parsed.error});
                visible = parsed.text;
            }
        }
        if (visible.find_first_not_of(" \n\t") == std::string::npos) return error({400, "Bad Request: message text is empty"});
        if (utf8::utf16_length(visible) > 4096) return error({400, "Bad Request: message is too long"});
        return std::nullopt;
    }

    json::object message_json(const Message& m) const {
        return json::object{{"message_id", m.message_id},
                            {"from", json::object{{"id", kBotId}, {"is_bot", true}, {"first_name", "Standin"}, {"username", "standin_bot"}}},
                            {"chat", json::object{{"id", id_value(m.chat)}, {"type", "private"}}},
                            {"date", static_cast<std::int64_t>(std::time(nullptr))},
                            {"text", m.visible}};
    }

    asio::awaitable<Answer> get_updates(const json::object& p) {
        auto offset = json_fields::number_at(p, "offset");
        auto limit_v = json_fields::number_at(p, "limit");
        auto timeout_v = json_fields::number_at(p, "timeout");
        std::size_t limit = limit_v.is_int64() ? static_cast<std::size_t>(std::clamp<std::int64_t>(limit_v.as_int64(), 1, 100)) : 100;
        auto timeout = std::chrono::seconds(timeout_v.is_int64() ? std::clamp<std::int64_t>(timeout_v.as_int64(), 0, 50) : 0);
        {
            std::lock_guard<std::mutex> g(mu);
            if (offset.is_int64() && offset.as_int64() > 0) {
                while (!updates.empty() && updates.front().at("update_id").as_int64() < offset.as_int64()) updates.pop_front();
                confirmed = std::max(confirmed, offset.as_int64());
            }
            if (auto f = next_failure("getUpdates")) co_return error(*f);
        }
        // One poller per token: a newer getUpdates ends the older one with 409.
        if (waiter) {
            waiter->conflicted = true;
            waiter->timer.cancel();
        }
        auto w = std::make_shared<Waiter>(server->io());
        waiter = w;
        auto deadline = Clock::now() + timeout;
        json::array out;
        for (;;) {
            {
                std::lock_guard<std::mutex> g(mu);
                for (auto& u : updates) {
                    if (out.size() >= limit) break;
                    out.push_back(u);
                }
            }
            if (!out.empty() || Clock::now() >= deadline) break;
            w->timer.expires_at(deadline);
            boost::system::error_code ec;
            co_await w->timer.async_wait(asio::redirect_error(use_awaitable, ec));
            if (w->conflicted)
                co_return error({409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"});
        }
        if (waiter == w) waiter.reset();
        co_return ok(std::move(out));
    }

    Answer send_message(const json::object& p) {
        auto chat = id_text(p, "chat_id");
        if (chat.empty()) return error({400, "Bad Request: chat_id is empty"});
        std::lock_guard<std::mutex> g(mu);
        if (auto f = next_failure("sendMessage")) return error(*f);
        Message m;
        if (auto bad = check_text(p, m.visible, m.parse_mode)) return *bad;
        m.message_id = next_message++;
        m.chat = chat;
        m.text = json_fields::string_at(p, "text");
        messages.push_back(m);
        return ok(message_json(m));
    }

    Answer edit_message(const json::object& p) {
        auto chat = id_text(p, "chat_id");
        auto id = json_fields::number_at(p, "message_id");
        if (chat.empty() || !id.is_int64()) return error({400, "Bad Request: message identifier is not specified"});
        std::lock_guard<std::mutex> g(mu);
        if (auto f = next_failure("editMessageText")) return error(*f);
        for (auto& m : messages) {
            if (m.chat != chat || m.message_id != id.as_int64()) continue;
            std::string visible, mode;
            if (auto bad = check_text(p, visible, mode)) return *bad;
            auto text = json_fields::string_at(p, "text");
            auto current = m.edits.empty() ? m.text : m.edits.back();
            if (text == current && mode == m.parse_mode) return error({400, kNotModified});
            m.edits.push_back(text);
            m.parse_mode = mode;
            m.visible = visible;
            return ok(message_json(m));
        }
        return error({400, "Bad Request: message to edit not found"});
    }

    asio::awaitable<Answer> dispatch(const std::string& method, const json::object& p) {
        if (method == "getUpdates") co_return co_await get_updates(p);
        if (method == "sendMessage") co_return send_message(p);
        if (method == "editMessageText") co_return edit_message(p);
        if (method == "sendChatAction") {
            if (id_text(p, "chat_id").empty() || json_fields::string_at(p, "action").empty())
                co_return error({400, "Bad Request: chat_id is empty"});
            co_return ok(true);
        }
        if (method == "getMe")
            co_return ok(json::object{{"id", kBotId}, {"is_bot", true}, {"first_name", "Standin"}, {"username", "standin_bot"}});
        if (method == "deleteWebhook") co_return ok(true);
        co_return error({404, "Not Found"});
    }

    // One request: /bot<token>/<method> with a JSON body.
    asio::awaitable<coffer::test::ServerResponse> handle(coffer::test::ServerRequest req) {
        {
            std::lock_guard<std::mutex> g(mu);
            lines.push_back(req.method + " " + req.target);
        }
        auto target = req.target.substr(0, req.target.find('?'));
        std::string prefix = "/bot" + token + "/";
        Answer a;
        std::string method;
        json::object params;
        if (target.rfind("/bot", 0) != 0 || target.find('/', 4) == std::string::npos) {
            a = error({404, "Not Found"});
        } else if (target.rfind(prefix, 0) != 0) {
            a = error({401, "Unauthorized"});
        } else {
            method = target.substr(prefix.size());
            boost::system::error_code ec;
            auto v = req.body.empty() ? json::value(json::object{}) : json::parse(req.body, ec);
            if (ec || !v.is_object()) {
                a = error({400, "Bad Request: the request body is not a JSON object"});
            } else {
                params = v.as_object();
                a = co_await dispatch(method, params);
            }
        }
        record(method, params, a);
        co_return coffer::test::ServerResponse{a.status, json::serialize(a.body), {{"Server", "telegram-standin"}}};
    }
};

Standin::Standin(std::string token) : impl_(std::make_unique<Impl>()) {
    impl_->token = std::move(token);
    impl_->server = std::make_unique<coffer::test::LoopbackServer>([impl = impl_.get()](coffer::test::ServerRequest r) {
        return impl->handle(std::move(r));
    });
}

Standin::~Standin() = default;

std::uint16_t Standin::port() const { return impl_->server->port(); }
std::string Standin::base_url() const { return "http://127.0.0.1:" + std::to_string(port()); }

std::int64_t Standin::inject_text(const std::string& from, const std::string& text, const std::string& chat) {
    std::int64_t id;
    {
        std::lock_guard<std::mutex> g(impl_->mu);
        id = impl_->next_update++;
        auto chat_id = chat.empty() ? from : chat;
        json::object msg{{"message_id", impl_->next_message++},
                         {"from", json::object{{"id", id_value(from)}, {"is_bot", false}, {"first_name", "User " + from}, {"username", "u" + from}}},
                         {"chat", json::object{{"id", id_value(chat_id)}, {"type", chat_id == from ? "private" : "group"}}},
                         {"date", static_cast<std::int64_t>(std::time(nullptr))},
                         {"text", text}};
        impl_->updates.push_back(json::object{{"update_id", id}, {"message", std::move(msg)}});
    }
    asio::post(impl_->server->io(), [impl = impl_.get()] {
        if (impl->waiter) impl->waiter->timer.cancel();
    });
    return id;
}

void Standin::fail(const std::string& method, Failure f, int times) {
    std::lock_guard<std::mutex> g(impl_->mu);
    for (int i = 0; i < times; ++i) impl_->failures[method].push_back(f);
}

void Standin::refuse_markup(int times, std::string containing) {
    std::lock_guard<std::mutex> g(impl_->mu);
    impl_->refuse_markup += times;
    impl_->refuse_containing = std::move(containing);
}

namespace {
// The items of `all` whose `key` is `wanted` (all of them when `wanted` is empty).
template <typename T> std::vector<T> matching(const std::vector<T>& all, std::string T::*key, const std::string& wanted) {
    if (wanted.empty()) return all;
    std::vector<T> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out), [&](const T& t) { return t.*key == wanted; });
    return out;
}
}  // namespace

std::vector<Call> Standin::calls(const std::string& method) const {
    std::lock_guard<std::mutex> g(impl_->mu);
    return matching(impl_->calls, &Call::method, method);
}

std::vector<Message> Standin::messages(const std::string& chat) const {
    std::lock_guard<std::mutex> g(impl_->mu);
    return matching(impl_->messages, &Message::chat, chat);
}

std::int64_t Standin::confirmed_offset() const {
    std::lock_guard<std::mutex> g(impl_->mu);
    return impl_->confirmed;
}

std::size_t Standin::unconfirmed() const {
    std::lock_guard<std::mutex> g(impl_->mu);
    return impl_->updates.size();
}

std::vector<std::string> Standin::request_lines() const {
    std::lock_guard<std::mutex> g(impl_->mu);
    return impl_->lines;
}

bool Standin::wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) const {
    auto deadline = Clock::now() + timeout;
    for (;;) {
        if (pred()) return true;
        if (Clock::now() >= deadline) return false;
        std::unique_lock<std::mutex> g(impl_->mu);
        impl_->changed.wait_for(g, std::chrono::milliseconds(20));
    }
}

}  // namespace coffer::telegram_standin
