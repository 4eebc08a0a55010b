#include "upstream.hpp"

#include "connection.hpp"

#include <algorithm>

namespace coffer::mcp_server {

void Upstream::add(const std::shared_ptr<Connection>& c) {
    std::lock_guard<std::mutex> g(mu_);
    std::erase_if(conns_, [](const std::weak_ptr<Connection>& w) { return w.expired(); });
    conns_.push_back(c);
}

void Upstream::remove(const Connection* c) {
    std::lock_guard<std::mutex> g(mu_);
    std::erase_if(conns_, [c](const std::weak_ptr<Connection>& w) {
        auto s = w.lock();
        return !s || s.get() == c;
    });
}

std::vector<std::shared_ptr<Connection>> Upstream::connections() {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<std::shared_ptr<Connection>> out;
    for (auto& w : conns_)
        if (auto s = w.lock()) out.push_back(std::move(s));
    return out;
}

}  // namespace coffer::mcp_server
