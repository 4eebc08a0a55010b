#include "mcp/gate.hpp"

#include "core/log.hpp"

#include <mutex>

namespace coffer::mcp {

void PluginGate::run(std::function<void()> op) {
    if (queue_.empty()) {
        std::unique_lock<std::recursive_mutex> lock(plugin_.mu, std::try_to_lock);
        if (lock.owns_lock()) return op();
    }
    queue_.push_back(std::move(op));
    arm();
}

void PluginGate::flush() {
    while (!queue_.empty()) {
        auto op = std::move(queue_.front());
        queue_.pop_front();
        op();
    }
    backoff_ = std::chrono::milliseconds(1);
}

void PluginGate::drain() {
    if (queue_.empty()) return;
    std::lock_guard<std::recursive_mutex> lock(plugin_.mu);
    flush();
}

void PluginGate::arm() {
    if (armed_) return;
    armed_ = true;
    timer_.expires_after(backoff_);
    timer_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
        auto self = w.lock();
        if (!self) return;
        self->armed_ = false;
        if (ec || self->queue_.empty()) return;
        std::unique_lock<std::recursive_mutex> lock(self->plugin_.mu, std::try_to_lock);
        if (lock.owns_lock()) return self->flush();
        if (self->backoff_ < std::chrono::milliseconds(20)) self->backoff_ *= 2;
        self->arm();
    });
}

}  // namespace coffer::mcp
