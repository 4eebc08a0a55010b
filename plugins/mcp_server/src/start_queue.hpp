// How many upstreams may be starting at once in this plugin. A start (a child spawned, or an
// HTTP connection made, until `initialize` is answered or fails) holds a slot for at most
// kMaxHold; beyond `limit` slots, starts wait in order — those of servers that have worked before
// first. So one list over hundreds of broken servers starts a handful of processes at a time
// instead of all of them, and the healthy servers' own starts are not starved of CPU; a server
// that never answers holds its slot only briefly. I/O thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <utility>

namespace coffer::mcp_server {

class StartQueue {
public:
    using Ticket = std::uint64_t;  // 0 = none
    static constexpr std::chrono::milliseconds kMaxHold{1000};
    // The default bound: 4 per CPU, at least 8.
    static std::size_t default_limit();

    using Defer = std::function<void(std::function<void()>)>;  // runs a function later on the I/O thread
    explicit StartQueue(Defer defer, std::size_t limit = default_limit()) : defer_(std::move(defer)), limit_(limit) {}

    // A ticket for a slot: held at once when one is free (holds() says so; the caller goes ahead
    // itself), else waiting — then `go` runs, deferred, once a leave() frees a slot for it.
    Ticket enter(bool preferred, std::function<void()> go);
    bool holds(Ticket t) const { return running_.count(t) != 0; }
    // The start is over (or was given up before it began). Unknown tickets are ignored.
    void leave(Ticket t);

    std::size_t starting() const { return running_.size(); }
    std::size_t waiting() const { return preferred_.size() + others_.size(); }

private:
    using Waiter = std::pair<Ticket, std::function<void()>>;
    Defer defer_;
    std::size_t limit_;
    Ticket next_ = 1;
    std::set<Ticket> running_;
    std::deque<Waiter> preferred_, others_;
};

}  // namespace coffer::mcp_server
