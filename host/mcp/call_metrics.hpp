// What the gateway counts for /metrics: calls by server, capability and outcome, their latency per
// server, and sessions opened. Recorded and written on the network thread only (the gateway's
// thread, where every call ends and where the /metrics handler starts), so the series tables need
// no lock; the counters themselves are atomics (metrics/instruments.hpp). The number of series is
// bounded: past kMaxSeries, new (server, name) pairs are counted under name "_other".
#pragma once

#include "curation/types.hpp"
#include "metrics/exposition.hpp"
#include "metrics/instruments.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace coffer::mcp {

class CallMetrics {
public:
    static constexpr std::size_t kMaxSeries = 5000;

    // A call answered (network thread): `name` is the namespaced tool or prompt, or the resource URI.
    void record(std::string_view server, curation::Type type, std::string_view name, std::string_view outcome,
                std::chrono::nanoseconds duration);
    void session_opened(std::string_view transport);
    // Network thread. `sessions` gives the open sessions by transport.
    void write(metrics::Writer& w, const std::map<std::string, std::size_t>& sessions) const;

private:
    using CallKey = std::tuple<std::string, std::string, std::string, std::string>;  // server, type, name, outcome
    std::map<CallKey, metrics::Counter, std::less<>> calls_;
    std::map<std::tuple<std::string, std::string>, metrics::DurationHistogram, std::less<>> latency_;  // server, type
    std::map<std::string, metrics::Counter, std::less<>> opened_;  // by transport
};

}  // namespace coffer::mcp
