// Test support: the one way a test waits for something another thread or process brings about.
// Polls `done` until it holds or `timeout` passes; never sleeps longer than needed.
#pragma once

#include <chrono>
#include <functional>

namespace coffer::test {

// True as soon as `done()` is; false when it still is not after `timeout`. `done` is evaluated
// once more at the deadline, so a condition that became true while sleeping is not missed.
bool eventually(const std::function<bool()>& done,
                std::chrono::milliseconds timeout = std::chrono::seconds(5),
                std::chrono::milliseconds step = std::chrono::milliseconds(10));

}  // namespace coffer::test
