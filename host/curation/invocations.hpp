// The invocation log (G-23, table mcp_invocations): one row per tools/call, resources/read and
// prompts/get through the gateway — when, who (session, agent), what (namespaced target), how long
// and how it ended. Never arguments, never results.
//
// Write path (docs/decisions/0017): `record` only appends to an in-memory queue under a mutex; the
// service thread writes the queue in batches (one transaction, one prepared statement) a short
// delay after the first record, so the network thread never waits for SQLite.
#pragma once

#include "curation/types.hpp"
#include "store/database.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/array.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace coffer::curation {

// How an invocation ended.
namespace outcome {
inline constexpr std::string_view ok = "ok";
inline constexpr std::string_view tool_error = "tool_error";  // a result with isError: true
inline constexpr std::string_view error = "error";            // a JSON-RPC error (error_code says which)
inline constexpr std::string_view timeout = "timeout";        // -32001, the per-call time limit
inline constexpr std::string_view disabled = "disabled";      // refused by curation, upstream not contacted
inline constexpr std::string_view unknown = "unknown";        // no such server for this session
inline constexpr std::string_view cancelled = "cancelled";    // the client cancelled, or the session ended
}  // namespace outcome

struct Invocation {
    std::int64_t ts_ms = 0;  // when the request arrived
    std::string session, agent, server;
    Type type = Type::tool;
    std::string target;      // the namespaced tool/prompt name or resource URI the client used
    std::int64_t duration_ms = 0;
    std::string outcome;
    std::optional<std::int64_t> error_code;
    bool retried = false;  // sent a second time after its upstream exited (also an audit row)
};

class InvocationLog {
public:
    struct Options {
        std::chrono::milliseconds delay{100};  // gathering time before a batch is written
        std::size_t batch = 1000;              // rows per transaction (the rest follows in a new turn)
        std::size_t max_queued = 100000;       // beyond this, records are dropped (and counted)
    };
    InvocationLog(store::Database& db, boost::asio::any_io_executor service, Options opt);
    InvocationLog(store::Database& db, boost::asio::any_io_executor service)
        : InvocationLog(db, std::move(service), Options{}) {}

    void record(Invocation inv);  // any thread; never blocks on the database
    // Before use: told of every recorded invocation, on the recording thread (the web console's
    // live view publishes it on the event bus). Must not block.
    void observe(std::function<void(const Invocation&)> observer) { observer_ = std::move(observer); }
    void flush();                 // service thread: writes everything queued now (also at shutdown)

    std::uint64_t recorded() const { return recorded_; }
    std::uint64_t written() const { return written_; }
    std::uint64_t dropped() const { return dropped_; }

private:
    void write_some();  // service thread: one batch, then another turn if more is queued
    bool refill();  // service thread: rows left in pending_, taking the queue when it is used up
    void write(std::size_t from, std::size_t to);  // service thread: pending_[from, to) in one transaction

    store::Database& db_;
    boost::asio::any_io_executor service_;
    Options opt_;
    boost::asio::steady_timer timer_;
    std::mutex mu_;
    std::deque<Invocation> queue_;  // appended by record(); taken whole by the service thread
    bool scheduled_ = false;
    std::deque<Invocation> pending_;  // service thread: taken, being written batch by batch
    std::size_t pending_at_ = 0;
    std::atomic<std::uint64_t> recorded_{0}, written_{0}, dropped_{0};
    std::function<void(const Invocation&)> observer_;
};

// Newest first; `server` filters by server name.
core::Result<boost::json::array> list_invocations(store::Database& db, const std::optional<std::string>& server,
                                                  int limit);

}  // namespace coffer::curation
