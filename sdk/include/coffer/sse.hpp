// Reading Server-Sent Events (the WHATWG event-stream format) incrementally: bytes in any
// chunking, LF / CRLF / CR line ends (a CR LF split across two chunks is one line end), `data`
// lines joined with LF, comments ignored, an event dispatched at a blank line only when it has
// data (as the standard says). Header-only: the stdio shim reads the daemon's streams with it and
// the mcp_server plugin its HTTP upstreams' streams.
//
//   coffer::SseParser sse;
//   if (!sse.feed(chunk, [&](const coffer::SseEvent& e) { … })) { /* an event over the limit */ }
//   sse.last_event_id();  // for Last-Event-ID when resuming
//   sse.retry_ms();       // the server's reconnection delay, if it sent one
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace coffer {

struct SseEvent {
    std::string_view type;      // the `event` field; "message" when absent
    std::string_view data;      // the `data` lines joined with "\n"
    std::string_view id;        // this event's own `id` field ("" when it had none)
    std::optional<long> retry;  // a valid `retry` field in this event
};

class SseParser {
public:
    static constexpr std::size_t kDefaultMaxEvent = 64u << 20;
    explicit SseParser(std::size_t max_event = kDefaultMaxEvent) : max_(max_event) {}

    // Calls `on_event(const SseEvent&)` for every event the bytes complete. Returns false once an
    // unfinished line or event grows past the limit: the stream should be dropped.
    template <class OnEvent>
    bool feed(std::string_view bytes, OnEvent&& on_event) {
        std::size_t i = 0;
        if (skip_lf_ && !bytes.empty()) {
            if (bytes[0] == '\n') i = 1;
            skip_lf_ = false;
        }
        while (i < bytes.size()) {
            std::size_t end = bytes.find_first_of("\r\n", i);
            if (end == std::string_view::npos) {
                partial_.append(bytes.substr(i));
                return partial_.size() + data_.size() <= max_;
            }
            std::string_view piece = bytes.substr(i, end - i);
            if (!partial_.empty()) {
                partial_.append(piece);
                std::string l = std::move(partial_);
                partial_.clear();
                line(l, on_event);
            } else {
                line(piece, on_event);
            }
            if (data_.size() > max_) return false;
            if (bytes[end] == '\r') {
                if (end + 1 < bytes.size()) {
                    if (bytes[end + 1] == '\n') ++end;
                } else {
                    skip_lf_ = true;
                }
            }
            i = end + 1;
        }
        return true;
    }

    // The standard's "last event ID buffer": the last `id` seen on this stream.
    const std::string& last_event_id() const noexcept { return last_id_; }
    // The last valid `retry` field seen on this stream, in milliseconds.
    std::optional<long> retry_ms() const noexcept { return last_retry_; }

private:
    template <class OnEvent>
    void line(std::string_view l, OnEvent& on_event) {
        if (l.empty()) {  // dispatch
            if (has_data_) {
                SseEvent ev;
                ev.type = type_.empty() ? std::string_view("message") : std::string_view(type_);
                ev.data = data_;
                ev.id = event_id_;
                ev.retry = retry_;
                on_event(static_cast<const SseEvent&>(ev));
            }
            data_.clear();
            type_.clear();
            event_id_.clear();
            retry_.reset();
            has_data_ = false;
            return;
        }
        if (l.front() == ':') return;  // a comment (keep-alive)
        std::string_view field = l, value;
        if (auto colon = l.find(':'); colon != std::string_view::npos) {
            field = l.substr(0, colon);
            value = l.substr(colon + 1);
            if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        }
        if (field == "data") {
            if (has_data_) data_.push_back('\n');
            data_.append(value);
            has_data_ = true;
        } else if (field == "event") {
            type_.assign(value);
        } else if (field == "id") {
            if (value.find('\0') == std::string_view::npos) {
                last_id_.assign(value);
                event_id_.assign(value);
            }
        } else if (field == "retry") {
            long ms = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
            if (ec == std::errc() && p == value.data() + value.size() && !value.empty() && ms >= 0)
                retry_ = last_retry_ = ms;
        }
    }

    std::size_t max_;
    std::string partial_;   // an unterminated line carried between feeds
    bool skip_lf_ = false;  // the previous chunk ended with CR: a leading LF belongs to it
    std::string data_, type_, event_id_, last_id_;
    bool has_data_ = false;
    std::optional<long> retry_, last_retry_;
};

}  // namespace coffer
