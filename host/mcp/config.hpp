// Gateway settings (daemon options; defaults suit a desktop).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace coffer::mcp {

struct Config {
    std::chrono::milliseconds idle_timeout{std::chrono::minutes(30)};  // a session without calls ends
    std::chrono::milliseconds cache_ttl{std::chrono::seconds(60)};     // per session, per provider list
    std::chrono::milliseconds list_timeout{std::chrono::seconds(30)};  // a provider slower than this is left out
    std::chrono::milliseconds keepalive{std::chrono::seconds(20)};     // SSE comment on idle streams
    std::chrono::milliseconds input_ttl{std::chrono::minutes(5)};      // 2026-07-28 input_required retry window
    std::size_t page_size = 500;      // items per downstream list page
    std::size_t max_sessions = 1000;  // beyond this, new sessions are refused (503)
    std::string machine;              // this machine's name, for scope (R-5, G-30)
    std::string server_name = "coffer";
    std::string server_version = "0.0.0";
};

}  // namespace coffer::mcp
