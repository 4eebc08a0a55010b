#include "mcp/reply.hpp"

#include "mcp/session.hpp"
#include "mcp/sse.hpp"

namespace coffer::mcp {

HttpReply::HttpReply(http::Respond respond, bool can_stream, Headers headers)
    : respond_(std::move(respond)), can_stream_(can_stream), headers_(std::move(headers)) {}

void HttpReply::write(const std::string& message) {
    auto text = message.empty() ? sse::comment() : sse::event(message, "message");
    if (stream_) stream_->write(std::move(text));
    else backlog_.push_back(std::move(text));
}

bool HttpReply::related(const std::string& message) {
    if (state_ == State::over || !can_stream_) return false;
    if (state_ == State::waiting) {
        if (message.empty()) return true;  // nothing to keep alive yet
        state_ = State::streaming;
        http::Response r;
        r.status = 200;
        r.content_type = "text/event-stream";
        r.headers = headers_;
        // Strong: the answer may be queued here before the stream exists, after the exchange is gone.
        r.on_stream = [self = shared_from_this()](std::shared_ptr<http::Stream> s) { self->attach(std::move(s)); };
        respond_(std::move(r));
    }
    write(message);
    return true;
}

void HttpReply::attach(std::shared_ptr<http::Stream> stream) {
    stream_ = std::move(stream);
    for (auto& t : backlog_) stream_->write(std::move(t));
    backlog_.clear();
    if (end_when_attached_) stream_->end();
}

void HttpReply::answer(const std::string& message, int http_status) {
    if (state_ == State::over) return;
    if (state_ == State::streaming) {
        state_ = State::over;
        write(message);
        if (stream_) stream_->end();
        else end_when_attached_ = true;
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
        if (stream_) stream_->end();
        else end_when_attached_ = true;
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
