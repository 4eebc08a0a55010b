// The library's one exported symbol, coffer_plugin_entry_v1.
#include "plugin.hpp"

COFFER_PLUGIN(coffer::mcp_server::McpServerPlugin, "mcp_server", "0.1.0")
