#include "health.hpp"

#include <ctime>

namespace coffer::mcp_server {

namespace json = boost::json;

namespace {
std::string now_iso() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}
}  // namespace

std::chrono::milliseconds Health::delay_locked() const {
    if (failures_ == 0) return std::chrono::milliseconds(0);
    auto d = kBackoffBase;
    for (unsigned i = 1; i < failures_ && d < kBackoffMax; ++i) d *= 2;
    return d < kBackoffMax ? d : kBackoffMax;
}

std::chrono::milliseconds Health::retry_in_locked(Clock::time_point now) const {
    if (failures_ == 0) return std::chrono::milliseconds(0);
    auto due = last_failure_ + delay_locked();
    if (due <= now) return std::chrono::milliseconds(0);
    return std::chrono::duration_cast<std::chrono::milliseconds>(due - now) + std::chrono::milliseconds(1);
}

std::optional<std::string> Health::admit(Clock::time_point now) {
    std::lock_guard<std::mutex> g(mu_);
    if (failures_ == 0) return std::nullopt;  // healthy or never tried: every session may connect
    if (attempt_in_flight_) return "the upstream is unhealthy (" + last_error_ + "); a reconnection attempt is in progress";
    auto wait = retry_in_locked(now);
    if (wait.count() > 0)
        return "the upstream is unhealthy (" + last_error_ + "); next attempt in " + std::to_string(wait.count()) +
               " ms";
    attempt_in_flight_ = true;
    return std::nullopt;
}

std::chrono::milliseconds Health::retry_in(Clock::time_point now) const {
    std::lock_guard<std::mutex> g(mu_);
    return retry_in_locked(now);
}

void Health::connected(std::string protocol_version, std::string server_info_json) {
    std::lock_guard<std::mutex> g(mu_);
    state_ = State::ok;
    ++starts_;
    if (down_since_last_start_) ++restarts_;
    down_since_last_start_ = false;
    failures_ = 0;
    attempt_in_flight_ = false;
    runner_missing_ = false;
    protocol_version_ = std::move(protocol_version);
    server_info_json_ = std::move(server_info_json);
}

void Health::start_failed(std::string error, bool runner_missing, Clock::time_point now) {
    std::lock_guard<std::mutex> g(mu_);
    state_ = State::unhealthy;
    last_error_ = std::move(error);
    last_error_at_ = now_iso();
    runner_missing_ = runner_missing;
    ++failures_;
    attempt_in_flight_ = false;
    last_failure_ = now;
    down_since_last_start_ = true;
}

void Health::abandoned() {
    std::lock_guard<std::mutex> g(mu_);
    attempt_in_flight_ = false;
}

void Health::refused(std::string error, bool runner_missing) {
    std::lock_guard<std::mutex> g(mu_);
    state_ = State::unhealthy;
    last_error_ = std::move(error);
    last_error_at_ = now_iso();
    runner_missing_ = runner_missing;
    attempt_in_flight_ = false;
}

void Health::lost(std::string error) {
    std::lock_guard<std::mutex> g(mu_);
    last_error_ = std::move(error);
    last_error_at_ = now_iso();
    down_since_last_start_ = true;
    if (state_ == State::ok) state_ = State::unknown;  // it was working; the next call finds out
}

void Health::connection_opened() {
    std::lock_guard<std::mutex> g(mu_);
    ++connections_;
}

void Health::connection_closed() {
    std::lock_guard<std::mutex> g(mu_);
    if (connections_ > 0) --connections_;
}

void Health::reset() {
    std::lock_guard<std::mutex> g(mu_);
    state_ = State::unknown;
    last_error_.clear();
    last_error_at_.clear();
    runner_missing_ = false;
    failures_ = 0;
    attempt_in_flight_ = false;
}

std::string Health::state() const {
    std::lock_guard<std::mutex> g(mu_);
    switch (state_) {
        case State::ok: return "ok";
        case State::unhealthy: return "unhealthy";
        default: return "unknown";
    }
}

json::object Health::to_json(Clock::time_point now) const {
    std::lock_guard<std::mutex> g(mu_);
    json::object o;
    o["health"] = state_ == State::ok ? "ok" : state_ == State::unhealthy ? "unhealthy" : "unknown";
    o["last_error"] = last_error_.empty() ? json::value(nullptr) : json::value(last_error_);
    o["last_error_at"] = last_error_at_.empty() ? json::value(nullptr) : json::value(last_error_at_);
    o["runner_not_installed"] = runner_missing_;
    o["connections"] = connections_;
    o["consecutive_failures"] = failures_;
    o["starts"] = starts_;
    o["restarts"] = restarts_;
    o["retry_in_ms"] = retry_in_locked(now).count();
    o["protocol_version"] = protocol_version_.empty() ? json::value(nullptr) : json::value(protocol_version_);
    json::value info = nullptr;
    if (!server_info_json_.empty()) {
        boost::system::error_code ec;
        info = json::parse(server_info_json_, ec);
        if (ec) info = nullptr;
    }
    o["server_info"] = info;
    return o;
}

}  // namespace coffer::mcp_server
