#include "shim/sse.hpp"

#include <charconv>

namespace coffer::shim {

void SseParser::feed(std::string_view bytes, const Handler& on_event) {
    std::size_t i = 0;
    if (skip_lf_ && !bytes.empty()) {
        if (bytes[0] == '\n') i = 1;
        skip_lf_ = false;
    }
    while (i < bytes.size()) {
        std::size_t end = bytes.find_first_of("\r\n", i);
        if (end == std::string_view::npos) {
            partial_.append(bytes.substr(i));
            return;
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
        if (bytes[end] == '\r') {
            if (end + 1 < bytes.size()) {
                if (bytes[end + 1] == '\n') ++end;
            } else {
                skip_lf_ = true;
            }
        }
        i = end + 1;
    }
}

void SseParser::line(std::string_view l, const Handler& on_event) {
    if (l.empty()) {
        // Dispatch. The last event ID buffer is updated even for events without data.
        if (has_data_) {
            SseEvent ev;
            ev.type = type_.empty() ? std::string_view("message") : std::string_view(type_);
            ev.data = data_;
            ev.id = event_id_;
            on_event(ev);
        }
        data_.clear();
        type_.clear();
        event_id_.clear();
        has_data_ = false;
        return;
    }
    if (l.front() == ':') return; // comment (keep-alive)
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
        if (ec == std::errc() && p == value.data() + value.size() && !value.empty()) retry_ = ms;
    }
}

}  // namespace coffer::shim
