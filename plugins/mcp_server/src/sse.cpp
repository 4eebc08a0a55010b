#include "sse.hpp"

namespace coffer::mcp_server {

bool SseParser::feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event) {
    for (char c : bytes) {
        if (skip_lf_) {
            skip_lf_ = false;
            if (c == '\n') continue;
        }
        if (c == '\r' || c == '\n') {
            if (c == '\r') skip_lf_ = true;
            line(buf_, on_event);
            buf_.clear();
            continue;
        }
        buf_.push_back(c);
        if (buf_.size() + data_.size() > kMaxEvent) return false;
    }
    return true;
}

void SseParser::line(std::string_view l, const std::function<void(const SseEvent&)>& on_event) {
    if (l.empty()) {  // dispatch
        if (has_data_) {
            SseEvent e;
            e.type = type_.empty() ? "message" : type_;
            e.data = std::move(data_);
            if (!e.data.empty() && e.data.back() == '\n') e.data.pop_back();
            e.id = last_id_;
            e.retry = retry_;
            on_event(e);
        } else if (retry_) {
            SseEvent e;
            e.type = "";
            e.id = last_id_;
            e.retry = retry_;
            on_event(e);
        }
        data_.clear();
        type_.clear();
        has_data_ = false;
        retry_.reset();
        return;
    }
    if (l.front() == ':') return;  // comment
    std::string_view field = l, value;
    if (auto colon = l.find(':'); colon != std::string_view::npos) {
        field = l.substr(0, colon);
        value = l.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    if (field == "data") {
        data_.append(value);
        data_.push_back('\n');
        has_data_ = true;
    } else if (field == "event") {
        type_ = std::string(value);
    } else if (field == "id") {
        if (value.find('\0') == std::string_view::npos) last_id_ = std::string(value);
    } else if (field == "retry") {
        if (!value.empty() && value.find_first_not_of("0123456789") == std::string_view::npos && value.size() < 10)
            retry_ = std::stol(std::string(value));
    }
}

}  // namespace coffer::mcp_server
