// Which connections the server keeps open: a cap on their number, room made at the cap (or when
// the process runs out of descriptors) by closing the connection idle the longest, and the pace of
// accept() while it fails. A connection with a request being handled or a response streaming is
// never closed for room — only a client with the token gets that far (the token is checked before
// any handler waits) — so an unauthenticated flood can only displace itself and idle keep-alive
// connections, and the CLI or the shim always finds a slot (ADR 0023). Network thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>

namespace coffer::http {

// One open connection, as admission sees it.
class Occupant {
public:
    virtual ~Occupant() = default;
    virtual bool busy() const = 0;  // a request is being handled or a response streams
    virtual void evict() = 0;       // closes the connection now (and leaves)
};

class Admission {
    struct Place {
        Occupant* occupant;
        std::chrono::steady_clock::time_point idle_since;
    };

public:
    using Clock = std::chrono::steady_clock;
    using Seat = std::list<Place>::iterator;

    explicit Admission(std::size_t cap) : cap_(cap == 0 ? 1 : cap) {}

    bool full() const { return seats_.size() >= cap_; }
    std::size_t size() const { return seats_.size(); }
    Seat enter(Occupant& o) { return seats_.insert(seats_.end(), {&o, Clock::now()}); }  // the newest idle one
    void idle(Seat s) {  // idle from now on
        s->idle_since = Clock::now();
        seats_.splice(seats_.end(), seats_, s);
    }
    void leave(Seat s) { seats_.erase(s); }
    // Closes the connection idle the longest, if it has been idle since before `idle_before`
    // (a connection just accepted has not had the time to send its request); false when every
    // connection is busy or idle too briefly.
    bool evict_one(Clock::time_point idle_before = Clock::time_point::max());

private:
    std::size_t cap_;
    std::list<Place> seats_;  // the one idle the longest first
};

// How long to pause accepting after accept() failed for want of a resource: 50 ms, doubling to 1 s.
class AcceptBackoff {
public:
    std::chrono::milliseconds next();
    void reset() { delay_ = std::chrono::milliseconds(0); }

private:
    std::chrono::milliseconds delay_{0};
};

enum class AcceptFailure {
    transient,  // this one connection failed (ECONNABORTED, EPROTO, EPERM, EINTR, EAGAIN): accept again
    exhausted,  // out of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM): make room, back off
    other,      // anything else: back off (never retry in a tight loop)
};
AcceptFailure classify_accept_error(int errno_value);

}  // namespace coffer::http
