// Session admission (ADR 0024): how fast new gateway sessions may be opened. Token buckets —
// one for every HTTP connection, one for all HTTP connections together, and a separate one for
// the local socket, so an HTTP flood can neither crowd out other HTTP clients from one
// connection nor starve the shim's fast path. Whether there is *room* for a session (the cap,
// eviction) is the gateway's business (admit.cpp); this is only the pace. Network thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <unordered_map>

namespace coffer::mcp {

// A rate: `per_second` tokens refill, at most `burst` are kept. per_second <= 0 = unlimited.
struct Rate {
    double per_second = 0;
    double burst = 0;
    bool unlimited() const { return per_second <= 0; }
};

// A classic token bucket, starting full.
class TokenBucket {
public:
    using Clock = std::chrono::steady_clock;
    TokenBucket(Rate rate, Clock::time_point now) : rate_(rate), tokens_(rate.burst), at_(now) {}

    // Takes a token when one is there.
    bool take(Clock::time_point now);
    // How long until a token is there (zero when one is).
    std::chrono::milliseconds wait(Clock::time_point now) const;
    // Back at `burst`: indistinguishable from a fresh bucket (so it can be forgotten).
    bool full(Clock::time_point now) const { return tokens_at(now) >= rate_.burst; }

private:
    double tokens_at(Clock::time_point now) const;

    Rate rate_;
    double tokens_;
    Clock::time_point at_;
};

// Where a new session comes from.
enum class Door { http, local };

class Admission {
public:
    using Clock = TokenBucket::Clock;
    Admission(Rate http_all, Rate http_connection, Rate local);

    // Zero: admitted (a token was taken from each bucket involved). Otherwise how long until this
    // door would admit one (nothing was taken). `connection` names the HTTP connection (unused
    // for the local door).
    std::chrono::milliseconds admit(Door door, std::uint64_t connection, Clock::time_point now);

    std::size_t connections_tracked() const { return per_connection_.size(); }

private:
    void sweep(Clock::time_point now);

    Rate http_connection_;
    bool http_limited_, connection_limited_, local_limited_;
    TokenBucket http_all_, local_;
    std::unordered_map<std::uint64_t, TokenBucket> per_connection_;
    // Beyond 256 kept, full per-connection buckets are forgotten, at most once a second.
    Clock::time_point last_sweep_{};
};

}  // namespace coffer::mcp
