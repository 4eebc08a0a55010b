// Capped exponential backoff with jitter, for a loop that must never give up (a long poll, a
// supervised child): 1 s, 2 s, 4 s … up to the cap, each ±20 %, back to the start after success.
#pragma once

#include <chrono>
#include <cstdint>

namespace coffer::channel_common {

class Backoff {
public:
    using ms = std::chrono::milliseconds;
    explicit Backoff(ms first = ms(1000), ms cap = ms(30000)) : first_(first), cap_(cap) {}

    // The next delay; at least `floor` (a server's retry_after), which may exceed the cap.
    ms next(ms floor = ms(0));
    void reset() { failures_ = 0; }
    std::uint32_t failures() const { return failures_; }

private:
    ms first_, cap_;
    std::uint32_t failures_ = 0;
};

}  // namespace coffer::channel_common
