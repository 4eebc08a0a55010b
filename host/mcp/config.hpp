// Gateway settings (daemon options; defaults suit a desktop).
#pragma once

#include "mcp/admission.hpp"
#include "toolsearch/hybrid.hpp"

#include <chrono>
#include <cstddef>
#include <string>

namespace coffer::mcp {

struct Config {
    std::chrono::milliseconds idle_timeout{std::chrono::minutes(30)};  // a session without calls ends
    std::chrono::milliseconds cache_ttl{std::chrono::seconds(60)};     // per session, per provider list
    std::chrono::milliseconds list_timeout{std::chrono::seconds(5)};   // per provider: slower ones are left out of a list
    std::chrono::milliseconds probe_timeout{std::chrono::seconds(30)}; // one server's live listing (REST, CLI)
    std::chrono::milliseconds keepalive{std::chrono::seconds(20)};     // SSE comment on idle streams
    std::chrono::milliseconds input_ttl{std::chrono::minutes(5)};      // 2026-07-28 input_required retry window
    std::size_t page_size = 500;      // items per downstream list page
    // Sessions (ADR 0024). At the cap the least recently used idle session gives way; a new
    // session is refused (503) only when every session is busy.
    std::size_t max_sessions = 1000;
    std::chrono::milliseconds session_grace{std::chrono::seconds(15)};  // a session nothing followed initialize in ends
    // New sessions per second (and burst): all HTTP connections together, one HTTP connection,
    // the local socket (its own bucket). Beyond them: 429 + Retry-After.
    Rate http_sessions{20, 100};
    Rate connection_sessions{5, 20};
    Rate local_sessions{20, 100};
    std::string machine;              // this machine's name, for scope (R-5, G-30)
    std::string server_name = "coffer";
    std::string server_version = "0.0.0";
    // coffer__search_tools: keyword search, fused with vectors when an embeddings endpoint is set.
    toolsearch::HybridSettings tool_search;
};

}  // namespace coffer::mcp
