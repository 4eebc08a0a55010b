#include "channel_common/backoff.hpp"

#include <algorithm>
#include <random>

namespace coffer::channel_common {

Backoff::ms Backoff::next(ms floor) {
    static thread_local std::minstd_rand rng{std::random_device{}()};
    auto base = first_.count();
    for (std::uint32_t i = 0; i < failures_ && base < cap_.count(); ++i) base *= 2;
    base = std::min<std::int64_t>(base, cap_.count());
    ++failures_;
    std::uniform_int_distribution<std::int64_t> jitter(-base / 5, base / 5);
    return std::max(ms(base + jitter(rng)), floor);
}

}  // namespace coffer::channel_common
