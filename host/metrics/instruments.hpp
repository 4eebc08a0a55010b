// The two instruments the daemon counts with: a counter and a histogram of durations, both plain
// atomics, so recording never takes a lock and a scrape reads them from any thread (it may see a
// histogram mid-update — one bucket ahead of its count — which Prometheus tolerates).
//
// Two flavours: `Writers::any` (fetch_add: any number of threads record) and `Writers::one` (one
// thread records, with a relaxed load and store — no read-modify-write, which costs ~25 ns on a
// loaded VM against ~1 ns). The gateway's series are recorded on the network thread alone and use
// `one`; counters bumped from several threads use `any`.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace coffer::metrics {

enum class Writers { any, one };

template <Writers W>
inline void bump(std::atomic<std::uint64_t>& a, std::uint64_t n) {
    if constexpr (W == Writers::any) a.fetch_add(n, std::memory_order_relaxed);
    else a.store(a.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

template <Writers W>
class BasicCounter {
public:
    void add(std::uint64_t n = 1) { bump<W>(v_, n); }
    std::uint64_t value() const { return v_.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> v_{0};
};

// Upper bounds in seconds shared by every duration histogram (1 ms … 60 s), plus +Inf.
inline constexpr std::array<double, 12> kDurationBounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                        0.1,   0.25,   0.5,   1.0,  5.0,   60.0};

template <Writers W>
class BasicDurationHistogram {
public:
    static constexpr std::size_t kBuckets = kDurationBounds.size();

    void observe(std::chrono::nanoseconds d) {
        static constexpr auto ns = [] {
            std::array<std::int64_t, kBuckets> b{};
            for (std::size_t i = 0; i < kBuckets; ++i) b[i] = static_cast<std::int64_t>(kDurationBounds[i] * 1e9 + 0.5);
            return b;
        }();
        auto v = d.count() < 0 ? std::int64_t(0) : static_cast<std::int64_t>(d.count());
        std::size_t i = 0;
        while (i < kBuckets && v > ns[i]) ++i;  // 12 comparisons at most; i == kBuckets: only +Inf
        bump<W>(buckets_[i], 1);
        bump<W>(sum_ns_, static_cast<std::uint64_t>(v));
        bump<W>(count_, 1);
    }
    // Non-cumulative count of bucket i (i == kBuckets: above the last bound).
    std::uint64_t bucket(std::size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
    std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
    double sum_seconds() const { return static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9; }

private:
    std::array<std::atomic<std::uint64_t>, kBuckets + 1> buckets_{};
    std::atomic<std::uint64_t> sum_ns_{0}, count_{0};
};

using Counter = BasicCounter<Writers::any>;
using OwnedCounter = BasicCounter<Writers::one>;
using DurationHistogram = BasicDurationHistogram<Writers::any>;
using OwnedDurationHistogram = BasicDurationHistogram<Writers::one>;

}  // namespace coffer::metrics
