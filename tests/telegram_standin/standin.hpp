// The Telegram Bot API stand-in: an HTTP server on 127.0.0.1 (its own thread) that answers
// POST /bot<TOKEN>/<method> with JSON bodies like api.telegram.org does. Tests drive it in
// process: inject updates (a user writing to the bot), force getUpdates/sendMessage failures
// (409, 429 with retry_after, 400 "can't parse entities"), and read back every call and every
// message the bot sent (with its edits).
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace coffer::telegram_standin {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

struct Call {
    std::string method;
    json::object params;
    int status = 0;           // the HTTP status answered
    std::string description;  // of an error answer
    Clock::time_point at;
};

struct Message {
    std::int64_t message_id = 0;
    std::string chat;
    std::string text;        // as sent (HTML when parse_mode is HTML)
    std::string visible;     // what the user sees
    std::string parse_mode;
    std::vector<std::string> edits;  // later texts, in order
};

struct Failure {
    int code = 0;
    std::string description;
    std::int64_t retry_after = 0;
};

class Standin {
public:
    explicit Standin(std::string token);
    ~Standin();
    Standin(const Standin&) = delete;
    Standin& operator=(const Standin&) = delete;

    std::uint16_t port() const;
    std::string base_url() const;  // http://127.0.0.1:<port>

    // A private-chat text message from `from` (chat id = from id unless given); returns update_id.
    std::int64_t inject_text(const std::string& from, const std::string& text, const std::string& chat = "");
    // The next `times` calls of `method` fail so (getUpdates: 409 "Conflict: …", 429 with
    // retry_after; sendMessage: 429; editMessageText: 400 "message is not modified", …).
    void fail(const std::string& method, Failure f, int times = 1);
    // The next `times` sendMessage/editMessageText calls with a parse_mode (and a text that
    // contains `containing`) are refused as unparsable ("Bad Request: can't parse entities: …").
    void refuse_markup(int times = 1, std::string containing = "");

    std::vector<Call> calls(const std::string& method = "") const;
    std::vector<Message> messages(const std::string& chat = "") const;
    std::int64_t confirmed_offset() const;  // the highest offset a getUpdates confirmed with
    std::size_t unconfirmed() const;        // updates still kept for the bot
    std::vector<std::string> request_lines() const;  // "POST /bot…/getUpdates" as received

    // Waits until `pred()` holds (checked on every change and every 20 ms).
    bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace coffer::telegram_standin
