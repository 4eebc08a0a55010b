// A Server-Sent Events parser (WHATWG event-stream format): bytes in, events out. Used by the
// HTTP transport for Streamable HTTP response streams, its GET stream and legacy HTTP+SSE.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::mcp_server {

struct SseEvent {
    std::string type = "message";  // the `event` field, "message" when absent
    std::string data;              // `data` lines joined with '\n'
    std::string id;                // the last event id seen on the stream
    std::optional<long> retry;     // a `retry` field in this event, in ms
};

class SseParser {
public:
    static constexpr std::size_t kMaxEvent = 64 * 1024 * 1024;

    // Feeds bytes; calls `on_event` for every complete event. Returns false when an event grew
    // past kMaxEvent (the stream should be dropped).
    bool feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event);
    const std::string& last_event_id() const { return last_id_; }

private:
    void line(std::string_view l, const std::function<void(const SseEvent&)>& on_event);

    std::string buf_;
    bool skip_lf_ = false;  // the previous chunk ended in CR: a leading LF belongs to it
    std::string type_, data_, last_id_;
    bool has_data_ = false;
    std::optional<long> retry_;
};

}  // namespace coffer::mcp_server
