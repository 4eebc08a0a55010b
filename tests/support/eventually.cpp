// Test support: eventually (see eventually.hpp).
#include "eventually.hpp"

#include <thread>

namespace coffer::test {

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout, std::chrono::milliseconds step) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (done()) return true;
        std::this_thread::sleep_for(step);
    }
    return done();
}

}  // namespace coffer::test
