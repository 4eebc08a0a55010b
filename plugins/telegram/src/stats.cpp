#include "stats.hpp"

namespace coffer::telegram {

void Stats::set_health(std::string health) {
    std::lock_guard<std::mutex> g(mu_);
    health_ = std::move(health);
}

void Stats::set_offset(std::int64_t offset) {
    std::lock_guard<std::mutex> g(mu_);
    offset_ = offset;
}

void Stats::set_last_error(std::string error) {
    std::lock_guard<std::mutex> g(mu_);
    last_error_ = std::move(error);
}

boost::json::object Stats::to_json() const {
    std::lock_guard<std::mutex> g(mu_);
    auto& c = counters_;
    boost::json::object out{
        {"health", health_},
        {"counters", boost::json::object{{"polls", c.polls},           {"updates", c.updates},
                                         {"conflicts", c.conflicts},   {"rate_limited", c.rate_limited},
                                         {"poll_failures", c.poll_failures}, {"sent", c.sent},
                                         {"edited", c.edited},         {"typing", c.typing},
                                         {"send_failed", c.send_failed}, {"plain_retries", c.plain_retries},
                                         {"send_retries", c.send_retries}}}};
    if (offset_) out["offset"] = *offset_;
    if (!last_error_.empty()) out["last_error"] = last_error_;
    return out;
}

}  // namespace coffer::telegram
