#include "chat/sse_stream.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace coffer::chat {

void Drainer::wake(std::weak_ptr<SseStream> s) {
    bool post = false;
    {
        std::lock_guard<std::mutex> g(mu_);
        pending_.push_back(std::move(s));
        post = !posted_;
        posted_ = true;
    }
    if (post) boost::asio::post(net_, [self = shared_from_this()] { self->run(); });
}

void Drainer::run() {
    std::vector<std::weak_ptr<SseStream>> batch;
    {
        std::lock_guard<std::mutex> g(mu_);
        batch.swap(pending_);
        posted_ = false;
    }
    for (auto& w : batch)
        if (auto s = w.lock()) s->drain();
}

SseStream::SseStream(std::shared_ptr<Drainer> drainer, events::Bus& bus, std::chrono::milliseconds heartbeat)
    : drainer_(std::move(drainer)), net_(drainer_->executor()), bus_(bus), heartbeat_(heartbeat), beat_(net_), retry_(net_) {}

events::Subscription::Wake SseStream::waker() {
    std::weak_ptr<SseStream> w = weak_from_this();
    return [w, d = drainer_] { d->wake(w); };
}

void SseStream::start(std::shared_ptr<http::Stream> stream, std::string preamble) {
    stream_ = std::move(stream);
    if (closed_) return stream_->end();  // the client left before the head was sent
    if (!preamble.empty()) stream_->write(std::move(preamble));
    wrote_ = true;
    heartbeat();
    drain();
}

void SseStream::close() {
    boost::asio::post(net_, [self = shared_from_this()] {
        if (self->closed_) return;
        self->closed_ = true;
        self->bus_.unsubscribe(self->sub_);
        self->beat_.cancel();
        self->retry_.cancel();
        if (self->stream_) self->stream_->end();
    });
}

void SseStream::drain() {
    if (closed_ || !stream_ || !sub_ || retrying_) return;
    if (!stream_->open()) return close();
    if (stream_->backlog() > kMaxBacklog) {  // the client is slow: let the bus queue (and drop) for it
        retrying_ = true;
        retry_.expires_after(std::chrono::milliseconds(50));
        retry_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            self->retrying_ = false;
            if (!ec) self->drain();
        });
        return;
    }
    auto batch = sub_->take();
    if (batch.empty()) return;
    std::string out;
    if (batch.missed) {
        boost::json::object r{{"type", "resync"}, {"reason", "this subscriber fell behind; reconnect with Last-Event-ID"},
                              {"missed", batch.missed}};
        out += "event: resync\ndata: " + boost::json::serialize(r) + "\n\n";
    }
    for (auto& e : batch.events) {
        if (!e.message->sse.empty()) {
            out += e.message->sse;
            continue;
        }
        out += "id: " + std::to_string(e.id) + "\nevent: " + e.message->type + "\ndata: ";
        out += e.message->json;
        out += "\n\n";
    }
    stream_->write_here(std::move(out));
    wrote_ = true;
}

void SseStream::heartbeat() {
    beat_.expires_after(heartbeat_);
    beat_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec || self->closed_) return;
        if (!self->stream_->open()) return self->close();
        if (!self->wrote_) self->stream_->write(": heartbeat\n\n");
        self->wrote_ = false;
        self->heartbeat();
    });
}

}  // namespace coffer::chat
