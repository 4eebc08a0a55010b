// One subscriber's event stream (GET /api/v1/conversations/{id}/events): its bus subscription
// drained onto the HTTP stream on the network thread, held back while the client is slow (the
// bus then drops for this subscriber alone and a `resync` event says so), and a heartbeat comment
// while nothing else is written.
#pragma once

#include "events/bus.hpp"
#include "http/message.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>
#include <string>

namespace coffer::chat {

class SseStream;

// Wakes event streams on the network thread with one post per batch, whatever the number of
// streams woken (100 subscribers of one conversation: one hand-off per event, not 100).
class Drainer : public std::enable_shared_from_this<Drainer> {
public:
    explicit Drainer(boost::asio::any_io_executor net) : net_(std::move(net)) {}
    void wake(std::weak_ptr<SseStream> s);  // any thread
    const boost::asio::any_io_executor& executor() const { return net_; }

private:
    void run();
    boost::asio::any_io_executor net_;
    std::mutex mu_;
    std::vector<std::weak_ptr<SseStream>> pending_;
    bool posted_ = false;
};

class SseStream : public std::enable_shared_from_this<SseStream> {
public:
    SseStream(std::shared_ptr<Drainer> drainer, events::Bus& bus, std::chrono::milliseconds heartbeat);

    // The bus wake for this stream (its drain runs on the network thread).
    events::Subscription::Wake waker();
    void set_subscription(std::shared_ptr<events::Subscription> s) { sub_ = std::move(s); }
    // Network thread: writes what was prepared, then streams.
    void start(std::shared_ptr<http::Stream> stream, std::string preamble);
    void close();  // any thread

    static constexpr std::size_t kMaxBacklog = 256 * 1024;

private:
    friend class Drainer;
    void drain();
    void heartbeat();
    std::shared_ptr<Drainer> drainer_;
    boost::asio::any_io_executor net_;
    events::Bus& bus_;
    std::chrono::milliseconds heartbeat_;
    boost::asio::steady_timer beat_, retry_;
    std::shared_ptr<events::Subscription> sub_;
    std::shared_ptr<http::Stream> stream_;
    bool wrote_ = false, retrying_ = false, closed_ = false;
};

}  // namespace coffer::chat
