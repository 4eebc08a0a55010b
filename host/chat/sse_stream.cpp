#include "chat/sse_stream.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace coffer::chat {

SseStream::SseStream(boost::asio::any_io_executor net, events::Bus& bus, std::chrono::milliseconds heartbeat)
    : net_(net), bus_(bus), heartbeat_(heartbeat), beat_(net), retry_(net) {}

events::Subscription::Wake SseStream::waker() {
    std::weak_ptr<SseStream> w = weak_from_this();
    auto net = net_;
    return [w, net] {
        boost::asio::post(net, [w] {
            if (auto self = w.lock()) self->drain();
        });
    };
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
        out += "id: " + std::to_string(e.id) + "\nevent: " + e.message->type + "\ndata: ";
        out += e.message->json;
        out += "\n\n";
    }
    stream_->write(std::move(out));
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
