// The host's event bus: topics, host-side subscribers, and a bounded queue per subscriber.
//
// A publisher never waits for a subscriber: publish() appends to each subscriber's queue under
// that queue's own short lock and, when the queue was empty, calls the subscriber's wake
// function (which must only hand work to its own thread). A subscriber that falls behind by more
// than its capacity loses what it had not taken and finds a gap marker (how many events it
// missed) in front of the next events instead — it never slows the publisher or anyone else.
// Plugins publish through the ABI's emit (topic "plugin/<name>/<topic>"); the conversation
// orchestrator publishes each conversation's events on "conversation/<id>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace coffer::events {

// What is published: immutable, shared by every subscriber.
struct Message {
    std::string type;  // e.g. "text.delta"
    std::string json;  // the event as JSON text
    std::string sse;   // the same as a Server-Sent Events frame, formatted once by the publisher ("" = none)
};

struct Event {
    std::uint64_t id = 0;                     // the publisher's sequence number (0: none)
    std::shared_ptr<const Message> message;
};

class Subscription {
public:
    using Wake = std::function<void()>;
    Subscription(std::string topic, std::size_t capacity, Wake wake)
        : topic_(std::move(topic)), capacity_(capacity), wake_(std::move(wake)) {}

    struct Batch {
        std::uint64_t missed = 0;  // a gap: events dropped before `events` because the queue was full
        std::vector<Event> events;
        bool empty() const { return missed == 0 && events.empty(); }
    };
    // Everything queued so far (the consumer's thread). The next publish wakes it again.
    Batch take();
    const std::string& topic() const { return topic_; }
    std::size_t queued() const;
    std::uint64_t missed_total() const;

private:
    friend class Bus;
    void push(const Event& e);  // the publisher's thread
    void close();

    const std::string topic_;
    const std::size_t capacity_;
    Wake wake_;
    mutable std::mutex mu_;
    std::deque<Event> queue_;
    std::uint64_t missed_ = 0, missed_total_ = 0;
    bool waiting_ = false;  // the consumer was woken and has not taken yet
    bool closed_ = false;
};

class Bus {
public:
    explicit Bus(std::size_t default_capacity = 1024) : default_capacity_(default_capacity) {}

    // Any thread. `wake` is called from publishing threads; it must not block or call into the
    // bus. capacity 0 = the bus's default.
    std::shared_ptr<Subscription> subscribe(const std::string& topic, Subscription::Wake wake, std::size_t capacity = 0);
    void unsubscribe(const std::shared_ptr<Subscription>& s);

    // Any thread; returns how many subscribers it reached.
    std::size_t publish(const std::string& topic, std::shared_ptr<const Message> message, std::uint64_t id = 0);
    std::size_t subscribers(const std::string& topic) const;

private:
    using List = std::vector<std::shared_ptr<Subscription>>;
    const std::size_t default_capacity_;
    mutable std::shared_mutex mu_;
    std::map<std::string, std::shared_ptr<const List>, std::less<>> topics_;  // copy on write
};

}  // namespace coffer::events
