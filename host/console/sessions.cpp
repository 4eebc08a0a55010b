// The console's login codes and browser sessions (see sessions.hpp).
#include "console/sessions.hpp"

#include "core/random.hpp"

#include <coffer/sha256.hpp>

#include <algorithm>

namespace coffer::console {

void Sessions::sweep(Clock::time_point now) {
    std::erase_if(codes_, [&](const auto& kv) { return kv.second <= now; });
    std::erase_if(sessions_, [&](const auto& kv) { return now - kv.second.last_used >= opt_.idle_ttl; });
}

std::string Sessions::issue_code() {
    auto code = core::random_hex(32);
    auto now = Clock::now();
    std::lock_guard<std::mutex> g(mu_);
    sweep(now);
    while (codes_.size() >= opt_.max_codes) {
        auto oldest = std::min_element(codes_.begin(), codes_.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
        codes_.erase(oldest);
    }
    codes_[sha256_hex(code)] = now + opt_.code_ttl;
    return code;
}

std::optional<Sessions::Opened> Sessions::redeem(std::string_view code) {
    if (code.size() != 64) return std::nullopt;
    auto now = Clock::now();
    Opened out{core::random_hex(32), core::random_hex(32)};
    std::lock_guard<std::mutex> g(mu_);
    sweep(now);
    auto it = codes_.find(sha256_hex(code));
    if (it == codes_.end()) return std::nullopt;
    codes_.erase(it);  // once, whatever follows
    while (sessions_.size() >= opt_.max_sessions) {
        auto lru = std::min_element(sessions_.begin(), sessions_.end(),
                                    [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
        sessions_.erase(lru);
    }
    sessions_[sha256_hex(out.id)] = Session{out.csrf, now};
    return out;
}

std::optional<std::string> Sessions::csrf_of(std::string_view id) {
    if (id.size() != 64) return std::nullopt;
    auto now = Clock::now();
    std::lock_guard<std::mutex> g(mu_);
    auto it = sessions_.find(sha256_hex(id));
    if (it == sessions_.end()) return std::nullopt;
    if (now - it->second.last_used >= opt_.idle_ttl) {
        sessions_.erase(it);
        return std::nullopt;
    }
    it->second.last_used = now;
    return it->second.csrf;
}

void Sessions::end(std::string_view id) {
    std::lock_guard<std::mutex> g(mu_);
    sessions_.erase(sha256_hex(id));
}

void Sessions::clear() {
    std::lock_guard<std::mutex> g(mu_);
    codes_.clear();
    sessions_.clear();
}

std::size_t Sessions::size() const {
    std::lock_guard<std::mutex> g(mu_);
    return sessions_.size();
}

}  // namespace coffer::console
