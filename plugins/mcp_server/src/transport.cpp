#include "http_transport.hpp"
#include "stdio_transport.hpp"

namespace coffer::mcp_server {

std::shared_ptr<Transport> make_transport(Runtime& rt, std::shared_ptr<const ServerConfig> cfg, TransportEvents& ev) {
    if (cfg->transport == TransportKind::http) return make_http_transport(rt, std::move(cfg), ev);
    return std::make_shared<StdioTransport>(rt, std::move(cfg), ev);
}

}  // namespace coffer::mcp_server
