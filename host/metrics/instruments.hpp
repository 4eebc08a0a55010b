// The two instruments the daemon counts with: a counter and a histogram of durations. Both are
// plain atomics updated with relaxed ordering, so recording on the hot path (every gateway call)
// costs a few uncontended atomic adds and never a lock; a scrape reads them from any thread and
// may see a histogram mid-update (one bucket ahead of its count), which Prometheus tolerates.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace coffer::metrics {

class Counter {
public:
    void add(std::uint64_t n = 1) { v_.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t value() const { return v_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> v_{0};
};

// Upper bounds in seconds shared by every duration histogram (1 ms … 60 s), plus +Inf.
inline constexpr std::array<double, 12> kDurationBounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                        0.1,   0.25,   0.5,   1.0,  5.0,   60.0};

class DurationHistogram {
public:
    static constexpr std::size_t kBuckets = kDurationBounds.size();

    void observe(std::chrono::nanoseconds d) {
        double s = std::chrono::duration<double>(d).count();
        std::size_t i = 0;
        while (i < kBuckets && s > kDurationBounds[i]) ++i;  // 12 comparisons at most
        buckets_[i].fetch_add(1, std::memory_order_relaxed);  // i == kBuckets: only +Inf
        sum_ns_.fetch_add(static_cast<std::uint64_t>(d.count() < 0 ? 0 : d.count()), std::memory_order_relaxed);
        count_.fetch_add(1, std::memory_order_relaxed);
    }
    // Non-cumulative count of bucket i (i == kBuckets: above the last bound).
    std::uint64_t bucket(std::size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
    std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
    double sum_seconds() const { return static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9; }

private:
    std::array<std::atomic<std::uint64_t>, kBuckets + 1> buckets_{};
    std::atomic<std::uint64_t> sum_ns_{0}, count_{0};
};

}  // namespace coffer::metrics
