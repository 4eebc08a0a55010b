#include "events/bus.hpp"

#include <algorithm>
#include <utility>

namespace coffer::events {

void Subscription::push(const Event& e) {
    bool wake = false;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (closed_) return;
        if (queue_.size() >= capacity_) {  // behind: what it has not taken is lost, and counted
            missed_ += queue_.size();
            missed_total_ += queue_.size();
            queue_.clear();
        }
        queue_.push_back(e);  // the newest is kept: after the gap marker the stream goes on
        wake = !waiting_;
        waiting_ = true;
    }
    if (wake && wake_) wake_();
}

Subscription::Batch Subscription::take() {
    Batch b;
    std::lock_guard<std::mutex> g(mu_);
    b.missed = std::exchange(missed_, 0);
    b.events.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
    waiting_ = false;
    return b;
}

std::size_t Subscription::queued() const {
    std::lock_guard<std::mutex> g(mu_);
    return queue_.size();
}

std::uint64_t Subscription::missed_total() const {
    std::lock_guard<std::mutex> g(mu_);
    return missed_total_;
}

void Subscription::close() {
    std::lock_guard<std::mutex> g(mu_);
    closed_ = true;
    queue_.clear();
}

std::shared_ptr<Subscription> Bus::subscribe(const std::string& topic, Subscription::Wake wake, std::size_t capacity) {
    auto s = std::make_shared<Subscription>(topic, capacity ? capacity : default_capacity_, std::move(wake));
    std::unique_lock<std::shared_mutex> g(mu_);
    auto& slot = topics_[topic];
    auto next = slot ? std::make_shared<List>(*slot) : std::make_shared<List>();
    next->push_back(s);
    slot = std::move(next);
    return s;
}

void Bus::unsubscribe(const std::shared_ptr<Subscription>& s) {
    if (!s) return;
    s->close();
    std::unique_lock<std::shared_mutex> g(mu_);
    auto it = topics_.find(s->topic());
    if (it == topics_.end()) return;
    auto next = std::make_shared<List>(*it->second);
    std::erase(*next, s);
    if (next->empty()) topics_.erase(it);
    else it->second = std::move(next);
}

std::size_t Bus::publish(const std::string& topic, std::shared_ptr<const Message> message, std::uint64_t id) {
    std::shared_ptr<const List> list;
    {
        std::shared_lock<std::shared_mutex> g(mu_);
        auto it = topics_.find(topic);
        if (it == topics_.end()) return 0;
        list = it->second;
    }
    Event e{id, std::move(message)};
    for (auto& s : *list) s->push(e);
    return list->size();
}

std::size_t Bus::subscribers(const std::string& topic) const {
    std::shared_lock<std::shared_mutex> g(mu_);
    auto it = topics_.find(topic);
    return it == topics_.end() ? 0 : it->second->size();
}

}  // namespace coffer::events
