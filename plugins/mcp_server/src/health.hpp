// Health of one upstream (per resource, shared by every session): ok / unhealthy / unknown, the
// last error, and a bounded exponential backoff so a down upstream sees no retry storm (G-11).
// Thread-safe.
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace coffer::mcp_server {

class Health {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kBackoffBase{500};
    static constexpr std::chrono::milliseconds kBackoffMax{30000};

    // May a new connection be attempted now? nullopt = yes (the caller must then report
    // started/failed); otherwise the fail-fast message. While unhealthy only one attempt runs at
    // a time, and none before the backoff delay has passed.
    std::optional<std::string> admit(Clock::time_point now);
    // How long until the next attempt is admitted (0 when admitted now).
    std::chrono::milliseconds retry_in(Clock::time_point now) const;

    // An admitted attempt succeeded (initialize done).
    void connected(std::string protocol_version, std::string server_info_json);
    // An admitted attempt failed: unhealthy, the backoff grows.
    void start_failed(std::string error, bool runner_missing, Clock::time_point now);
    // An admitted attempt ended without a verdict (its session closed first).
    void abandoned();
    // A refusal before any attempt (runner missing, credential reference): unhealthy, no backoff
    // (a fix takes effect at the next call), but reported like a failure.
    void refused(std::string error, bool runner_missing);
    // A connection that was up died (crash, session expired): recorded; no backoff, so the next
    // call respawns at once.
    void lost(std::string error);
    // The connection count (live upstream connections of this resource).
    void connection_opened();
    void connection_closed();
    // Forget everything (config changed).
    void reset();

    std::string state() const;  // "ok" | "unhealthy" | "unknown"
    boost::json::object to_json(Clock::time_point now) const;

private:
    std::chrono::milliseconds delay_locked() const;
    std::chrono::milliseconds retry_in_locked(Clock::time_point now) const;

    mutable std::mutex mu_;
    enum class State { unknown, ok, unhealthy } state_ = State::unknown;
    std::string last_error_;
    std::string last_error_at_;  // ISO 8601 UTC
    bool runner_missing_ = false;
    unsigned failures_ = 0;      // consecutive failed attempts
    bool attempt_in_flight_ = false;
    Clock::time_point last_failure_{};
    std::string protocol_version_, server_info_json_;
    int connections_ = 0;
    // Upstream (re)starts: every successful connection, and those that followed a crash, a lost
    // connection or a failed start (exported by the daemon's /metrics as restarts).
    std::uint64_t starts_ = 0, restarts_ = 0;
    bool down_since_last_start_ = false;
};

}  // namespace coffer::mcp_server
