// Daemon command line and environment.
#pragma once

#include "core/result.hpp"
#include "http/limits.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace coffer::daemon {

inline constexpr std::uint16_t kDefaultPort = 38470;
inline constexpr int kPortFallbacks = 9;

// New MCP sessions per second and the burst kept (0 = unlimited).
struct SessionRate {
    double per_second = 0;
    double burst = 0;
};

struct Options {
    std::filesystem::path home;                  // --home, $COFFER_HOME, ~/.coffer
    std::optional<std::uint16_t> port;           // --port, $COFFER_PORT (0 = any free port)
    std::vector<std::filesystem::path> plugin_dirs;  // extra: --plugin-dir, $COFFER_PLUGIN_PATH (colon-separated)
    bool log_stderr = false;                     // --log-stderr (default: when stderr is a terminal)
    int mcp_idle_timeout_s = 1800;               // --mcp-idle-timeout, $COFFER_MCP_IDLE_TIMEOUT (seconds)
    int mcp_page_size = 500;                     // $COFFER_MCP_PAGE_SIZE: items per MCP list page
    // Deadlines and the connection cap: --http-{header,body,idle}-timeout-ms, --http-max-connections,
    // $COFFER_HTTP_{HEADER,BODY,IDLE}_TIMEOUT_MS, $COFFER_HTTP_MAX_CONNECTIONS (defaults in limits.hpp).
    http::Limits http;
    // Session admission and listing (ADR 0024); unset = the gateway's defaults (mcp/config.hpp).
    std::optional<int> mcp_max_sessions;         // --mcp-max-sessions, $COFFER_MCP_MAX_SESSIONS
    std::optional<int> mcp_session_grace_s;      // --mcp-session-grace, $COFFER_MCP_SESSION_GRACE (seconds)
    // --mcp-session-rate, $COFFER_MCP_SESSION_RATE: "R/B" for all HTTP connections together (and,
    // in its own bucket, the local socket), ",R/B" after it for one HTTP connection; "off" sets
    // both to unlimited.
    std::optional<SessionRate> mcp_session_rate, mcp_connection_rate;
    std::optional<int> mcp_list_timeout_ms;      // --mcp-list-timeout, $COFFER_MCP_LIST_TIMEOUT_MS: per server
    int chat_heartbeat_ms = 15000;               // $COFFER_CHAT_HEARTBEAT_MS: comment lines on idle event streams
    std::string otlp_endpoint;                   // $COFFER_OTLP_ENDPOINT: export spans over OTLP/HTTP JSON ("" = off)
    // Hybrid tool search (docs/tool-search.md): an OpenAI-compatible embeddings endpoint, its
    // model, its key as a stored credential's reference, and the vector list's weight in the fusion.
    std::string toolsearch_embeddings_url;       // $COFFER_TOOLSEARCH_EMBEDDINGS_URL ("" = keyword only)
    std::string toolsearch_embeddings_model;     // $COFFER_TOOLSEARCH_EMBEDDINGS_MODEL
    std::string toolsearch_embeddings_key;       // $COFFER_TOOLSEARCH_EMBEDDINGS_KEY: credref:NAME
    float toolsearch_vector_weight = 1.0f;       // $COFFER_TOOLSEARCH_VECTOR_WEIGHT: 0 to 1
    bool help = false;
    bool version = false;
};

core::Result<Options> parse_options(int argc, char** argv);
const char* usage();

}  // namespace coffer::daemon
