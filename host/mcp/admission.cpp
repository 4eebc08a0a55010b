// Session admission: token buckets per HTTP connection, for all HTTP connections, and for the
// local socket (see admission.hpp).
#include "mcp/admission.hpp"

#include <algorithm>
#include <cmath>

namespace coffer::mcp {

double TokenBucket::tokens_at(Clock::time_point now) const {
    if (now <= at_) return tokens_;
    double seconds = std::chrono::duration<double>(now - at_).count();
    return std::min(rate_.burst, tokens_ + seconds * rate_.per_second);
}

bool TokenBucket::take(Clock::time_point now) {
    tokens_ = tokens_at(now);
    at_ = std::max(at_, now);
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
}

std::chrono::milliseconds TokenBucket::wait(Clock::time_point now) const {
    double tokens = tokens_at(now);
    if (tokens >= 1) return std::chrono::milliseconds(0);
    if (rate_.per_second <= 0) return std::chrono::milliseconds(1000);  // never refills: not a configuration we build
    auto ms = std::ceil((1 - tokens) / rate_.per_second * 1000);
    return std::chrono::milliseconds(std::max<long long>(1, static_cast<long long>(ms)));
}

namespace {
// A limited rate keeps at least one token, or nothing could ever be admitted.
Rate sane(Rate r) {
    if (!r.unlimited()) r.burst = std::max(1.0, r.burst);
    return r;
}
}  // namespace

Admission::Admission(Rate http_all, Rate http_connection, Rate local)
    : http_connection_(sane(http_connection)), http_limited_(!http_all.unlimited()),
      connection_limited_(!http_connection.unlimited()), local_limited_(!local.unlimited()),
      http_all_(sane(http_all), Clock::now()), local_(sane(local), Clock::now()) {}

void Admission::sweep(Clock::time_point now) {
    if (per_connection_.size() < 256 || now - last_sweep_ < std::chrono::seconds(1)) return;
    last_sweep_ = now;
    std::erase_if(per_connection_, [&](auto& kv) { return kv.second.full(now); });
}

std::chrono::milliseconds Admission::admit(Door door, std::uint64_t connection, Clock::time_point now) {
    using std::chrono::milliseconds;
    if (door == Door::local) {
        if (!local_limited_ || local_.take(now)) return milliseconds(0);
        return std::max(milliseconds(1), local_.wait(now));
    }
    TokenBucket* own = nullptr;
    if (connection_limited_ && connection != 0) {
        sweep(now);
        own = &per_connection_.try_emplace(connection, http_connection_, now).first->second;
    }
    milliseconds wait(0);
    if (own) wait = std::max(wait, own->wait(now));
    if (http_limited_) wait = std::max(wait, http_all_.wait(now));
    if (wait.count() > 0) return wait;
    if (own) own->take(now);
    if (http_limited_) http_all_.take(now);
    return milliseconds(0);
}

}  // namespace coffer::mcp
