// What the gateway counts for /metrics: calls by server, capability and outcome, their latency per
// server, and sessions opened. Recorded and written on the network thread only (the gateway's
// thread, where every call ends and where the /metrics handler starts), so the series table needs
// no lock; the counters themselves are atomics (metrics/instruments.hpp). One call costs one hash
// lookup (the key is built in a reused buffer: no allocation once warm) and a few relaxed atomic
// adds. The number of series is bounded: past kMaxSeries, new names are counted as "_other".
#pragma once

#include "curation/types.hpp"
#include "metrics/exposition.hpp"
#include "metrics/instruments.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

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
    static constexpr std::size_t kOutcomes = 8;  // the invocation log's seven, and anything else
    struct Series {
        std::string server, type, name;
        std::array<metrics::OwnedCounter, kOutcomes> calls;
        metrics::OwnedDurationHistogram* latency = nullptr;  // the (server, type) histogram
    };
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    Series& series(std::string_view server, curation::Type type, std::string_view name);

    std::string key_;  // reused lookup buffer: server \x1f type \x1f name
    std::unordered_map<std::string, std::unique_ptr<Series>, Hash, std::equal_to<>> calls_;
    std::map<std::string, std::unique_ptr<metrics::OwnedDurationHistogram>, std::less<>> latency_;  // server \x1f type
    std::map<std::string, metrics::OwnedCounter, std::less<>> opened_;                             // by transport
};

}  // namespace coffer::mcp
