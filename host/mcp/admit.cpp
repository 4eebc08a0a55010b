// Gateway: opening a session (ADR 0024). First room: at the cap an idle session must be able to
// give way, else 503 (every session is busy). Then pace: the door's token buckets (admission.hpp),
// else 429. Then the idle session gives way — a provisional one (nothing followed its
// initialize) before any established one, each kind oldest first — and the new session opens.
#include "mcp/gateway.hpp"

#include "core/log.hpp"

#include <boost/json.hpp>

namespace coffer::mcp {

namespace json = boost::json;

namespace {
std::int64_t whole_seconds_up(std::chrono::milliseconds ms) { return std::max<std::int64_t>(1, (ms.count() + 999) / 1000); }
}  // namespace

std::shared_ptr<Session> Gateway::evictable_session() const {
    std::shared_ptr<Session> best;
    for (auto& [id, s] : sessions_) {
        if (!s->evictable()) continue;
        if (!best) {
            best = s;
            continue;
        }
        // Provisional sessions first (a flood of bare initializes), then the least recently used.
        if (s->established() != best->established()) {
            if (!s->established()) best = s;
        } else if (s->last_used() < best->last_used()) {
            best = s;
        }
    }
    return best;
}

Gateway::Admitted Gateway::open_session(Door door, std::uint64_t connection, Transport t, Version v, Identity who) {
    Admitted out;
    std::shared_ptr<Session> victim;
    if (full() && !(victim = evictable_session())) {
        out.refusal = Refusal{503,
                              "too many MCP sessions (" + std::to_string(sessions_.size()) +
                                  ", all busy); try again later",
                              std::chrono::milliseconds(2000), "TOO_MANY_SESSIONS"};
        core::log::warn("mcp session refused: every session is busy",
                        {{"sessions", static_cast<std::int64_t>(sessions_.size())}});
        return out;
    }
    auto now = std::chrono::steady_clock::now();
    if (auto wait = admission_.admit(door, connection, now); wait.count() > 0) {
        out.refusal = Refusal{429,
                              std::string("too many new MCP sessions ") +
                                  (door == Door::local ? "on the local socket" : "over HTTP") + "; retry in " +
                                  std::to_string(whole_seconds_up(wait)) + " s",
                              wait, "RATE_LIMITED"};
        // Logged once per second at most: a flood must not become a flood of log lines.
        if (now - last_refusal_log_ > std::chrono::seconds(1)) {
            last_refusal_log_ = now;
            core::log::warn("mcp session refused: rate limited",
                            {{"door", door == Door::local ? "local-socket" : "http"},
                             {"retry_after_ms", static_cast<std::int64_t>(wait.count())}});
        }
        return out;
    }
    if (victim) {
        core::log::info("mcp session evicted to make room",
                        {{"session", victim->id()}, {"established", victim->established()}});
        victim->close("evicted: the session limit was reached and it was the least recently used idle session");
    }
    out.session = create(t, v, std::move(who));
    return out;
}

std::string Gateway::refusal_rpc(const Refusal& r, const json::value& id) {
    return rpc::error(id, rpc::code::server_error, r.message,
                      json::object{{"code", r.code}, {"retry_after_ms", static_cast<std::int64_t>(r.retry_after.count())}});
}

http::Response Gateway::refusal_http(const Refusal& r, const json::value& id) {
    http::Response res;
    res.status = r.http_status;
    res.body = refusal_rpc(r, id);
    res.headers.emplace_back("Retry-After", std::to_string(whole_seconds_up(r.retry_after)));
    return res;
}

}  // namespace coffer::mcp
