// An incremental Server-Sent Events parser (the WHATWG event-stream format): bytes in any
// chunking, LF / CRLF / CR line ends, `data` lines joined with LF, comments ignored.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::shim {

struct SseEvent {
    std::string_view type; // the `event` field, "message" when absent
    std::string_view data; // data lines joined with "\n"
    std::string_view id;   // the `id` field of this event ("" when none)
};

class SseParser {
public:
    using Handler = std::function<void(const SseEvent&)>;

    // Feeds bytes; calls `on_event` for every event completed by them (an event ends at a blank
    // line; one with no data line is not dispatched, as the standard says).
    void feed(std::string_view bytes, const Handler& on_event);

    // The last event id seen on this stream (the standard's "last event ID buffer").
    const std::string& last_event_id() const noexcept { return last_id_; }
    // The last valid `retry` field, in milliseconds.
    std::optional<long> retry_ms() const noexcept { return retry_; }

private:
    void line(std::string_view l, const Handler& on_event);

    std::string partial_;    // an unterminated line carried between feeds
    bool skip_lf_ = false;   // the previous chunk ended with CR: a leading LF belongs to it
    std::string data_, type_, event_id_;
    bool has_data_ = false;
    std::string last_id_;
    std::optional<long> retry_;
};

}  // namespace coffer::shim
