// The mcp_server kind: schema (schemas/mcp_server.schema.json, compiled in), validator, the
// name rules checked at create, actions, and the MCP provider flag.
#pragma once

#include "runtime.hpp"

#include <coffer/sdk.hpp>

namespace coffer::mcp_server {

// The schema text, generated from schemas/mcp_server.schema.json at build time.
extern const char* const kSchemaText;

class ServerKind : public sdk::Kind {
public:
    explicit ServerKind(Runtime& rt) : rt_(rt) {}
    std::string name() const override { return "mcp_server"; }
    std::string schema() const override { return kSchemaText; }
    std::vector<sdk::ActionInfo> actions() const override;
    bool provides_mcp() const override { return true; }
    void validate(const json::object& config, sdk::Validation& v) override;
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override;

private:
    Runtime& rt_;
};

}  // namespace coffer::mcp_server
