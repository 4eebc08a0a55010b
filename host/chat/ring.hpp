// The events of a conversation's current turn, kept for subscribers that come late or reconnect
// (T-2): bounded, numbered by the conversation's monotonic sequence. Service thread only.
#pragma once

#include "events/bus.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

namespace coffer::chat {

class Ring {
public:
    explicit Ring(std::size_t capacity = 4096) : capacity_(capacity) {}

    void clear() { items_.clear(); }
    void push(const events::Event& e) {
        if (items_.size() >= capacity_) items_.pop_front();
        items_.push_back(e);
    }

    struct Replay {
        bool resync = false;  // the id asked for is no longer (or not yet) here: the whole buffer follows
        std::vector<events::Event> events;
    };
    // The events after `last_id` (all of them when none is given). `latest` is the newest
    // sequence number the conversation issued.
    Replay after(std::optional<std::uint64_t> last_id, std::uint64_t latest) const {
        Replay r;
        std::uint64_t from = 0;
        if (last_id) {
            std::uint64_t oldest = items_.empty() ? latest + 1 : items_.front().id;
            if (*last_id > latest || *last_id + 1 < oldest) r.resync = true;  // from another daemon run, or fell out
            else from = *last_id;
        }
        for (auto& e : items_)
            if (e.id > from) r.events.push_back(e);
        return r;
    }
    std::size_t size() const { return items_.size(); }

private:
    std::size_t capacity_;
    std::deque<events::Event> items_;
};

}  // namespace coffer::chat
