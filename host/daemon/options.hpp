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
    bool help = false;
    bool version = false;
};

core::Result<Options> parse_options(int argc, char** argv);
const char* usage();

}  // namespace coffer::daemon
