// The mcp_server plugin: one kind, one I/O runtime started in init and joined in shutdown.
#pragma once

#include "kind.hpp"
#include "runtime.hpp"

#include <coffer/sdk.hpp>

namespace coffer::mcp_server {

class McpServerPlugin : public sdk::Plugin {
public:
    McpServerPlugin() : rt_(host()) { add_kind<ServerKind>(rt_); }
    void init(const json::value&) override { rt_.start(); }
    void shutdown() override { rt_.shutdown(); }

private:
    Runtime rt_;
};

}  // namespace coffer::mcp_server
