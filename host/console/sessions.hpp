// The web console's credentials (issue 17). `coffer open` asks the daemon (with the API token) for
// a one-time login code; the browser trades it at /console/login for a session cookie (HttpOnly,
// SameSite=Strict) — so the API token never appears in a URL, a browser history or a log, and a
// leaked login link is worthless once used or after two minutes. Each session has a CSRF token
// the page sends with every state-changing request. Sessions live in memory only: a restarted
// daemon, or a rotated API token, logs every browser out. Codes and session ids are kept as their
// SHA-256, so looking one up reveals nothing through timing. Thread-safe; not on any hot path.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::console {

class Sessions {
public:
    using Clock = std::chrono::steady_clock;
    struct Options {
        std::chrono::seconds code_ttl{120};
        std::chrono::hours idle_ttl{12};  // a session unused this long ends
        std::size_t max_codes = 32;       // unredeemed codes kept (the oldest goes first)
        std::size_t max_sessions = 64;    // the least recently used goes first
    };
    Sessions() : Sessions(Options{}) {}
    explicit Sessions(Options opt) : opt_(opt) {}

    std::string issue_code();
    struct Opened {
        std::string id, csrf;
    };
    // A valid, unexpired code, once: a new session. nullopt otherwise (and the code is gone).
    std::optional<Opened> redeem(std::string_view code);
    // The CSRF token of a live session (and it counts as used now); nullopt when unknown/expired.
    std::optional<std::string> csrf_of(std::string_view id);
    void end(std::string_view id);
    void clear();  // every code and session (the API token was rotated)
    std::size_t size() const;

    std::chrono::seconds code_ttl() const { return opt_.code_ttl; }

private:
    void sweep(Clock::time_point now);  // with mu_ held
    Options opt_;
    mutable std::mutex mu_;
    std::map<std::string, Clock::time_point> codes_;  // sha256(code) → expiry
    struct Session {
        std::string csrf;
        Clock::time_point last_used;
    };
    std::map<std::string, Session> sessions_;  // sha256(id) → session
};

}  // namespace coffer::console
