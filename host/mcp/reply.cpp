#include "mcp/reply.hpp"

#include "mcp/session.hpp"

namespace coffer::mcp {

HttpReply::HttpReply(http::Respond respond, bool can_stream, Headers headers, Resumption resumption)
    : respond_(std::move(respond)), can_stream_(can_stream), headers_(std::move(headers)),
      resumption_(std::move(resumption)) {}

void HttpReply::upgrade() {
    state_ = State::streaming;
    events_ = resumption_.streams ? resumption_.streams->open() : std::make_shared<EventStream>();
    if (resumption_.prime) events_->prime();
    http::Response r;
    r.status = 200;
    r.content_type = "text/event-stream";
    r.headers = headers_;
    r.on_stream = [events = events_](std::shared_ptr<http::Stream> s) { events->connect(std::move(s)); };
    respond_(std::move(r));
}

bool HttpReply::related(const std::string& message) {
    if (state_ == State::over || !can_stream_) return false;
    if (state_ == State::waiting) {
        if (message.empty()) return true;  // nothing to keep alive yet
        upgrade();
    }
    if (message.empty()) events_->comment();
    else events_->send(message);
    return true;
}

void HttpReply::answer(const std::string& message, int http_status) {
    if (state_ == State::over) return;
    if (state_ == State::streaming) {
        state_ = State::over;
        events_->send(message);
        events_->end();
        return;
    }
    state_ = State::over;
    http::Response r;
    r.status = http_status;
    r.headers = headers_;
    r.body = message;
    respond_(std::move(r));
}

void HttpReply::drop() {
    if (state_ == State::over) return;
    if (state_ == State::streaming) {
        state_ = State::over;
        events_->end();
        return;
    }
    state_ = State::over;
    http::Response r;
    r.status = 202;
    r.headers = headers_;
    respond_(std::move(r));
}

bool SessionStreamReply::related(const std::string& message) {
    auto s = session_.lock();
    return s && !message.empty() && s->send(message);
}

void SessionStreamReply::answer(const std::string& message, int) {
    if (auto s = session_.lock()) s->send(message);
}

}  // namespace coffer::mcp
