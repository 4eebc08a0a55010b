// The bound on upstreams starting at once (see start_queue.hpp).
#include "start_queue.hpp"

#include <algorithm>
#include <thread>

namespace coffer::mcp_server {

std::size_t StartQueue::default_limit() {
    return std::max<std::size_t>(8, 4 * static_cast<std::size_t>(std::thread::hardware_concurrency()));
}

StartQueue::Ticket StartQueue::enter(bool preferred, std::function<void()> go) {
    Ticket t = next_++;
    if (running_.size() < limit_ && preferred_.empty() && others_.empty()) {
        running_.insert(t);
        return t;
    }
    (preferred ? preferred_ : others_).emplace_back(t, std::move(go));
    return t;
}

void StartQueue::leave(Ticket t) {
    if (!running_.erase(t)) {
        for (auto* q : {&preferred_, &others_})
            std::erase_if(*q, [t](const Waiter& w) { return w.first == t; });
        return;
    }
    while (running_.size() < limit_ && (!preferred_.empty() || !others_.empty())) {
        auto& q = preferred_.empty() ? others_ : preferred_;
        auto next = std::move(q.front());
        q.pop_front();
        running_.insert(next.first);
        defer_(std::move(next.second));
    }
}

}  // namespace coffer::mcp_server
