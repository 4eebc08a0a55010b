// One mcp_server resource: its Upstream (config, health, connections), status, the `test` and
// `tools` actions, and a Session per downstream session that uses it.
#pragma once

#include "oauth.hpp"
#include "upstream.hpp"

#include <coffer/sdk.hpp>

namespace coffer::mcp_server {

class ServerInstance : public sdk::Instance {
public:
    ServerInstance(Runtime& rt, ServerConfig cfg);
    ~ServerInstance() override;

    void start() override;
    void stop() override;
    void update(const json::object& config) override;
    json::value status() override;
    json::value action(std::string_view name, const json::object& args) override;
    std::unique_ptr<sdk::McpSessionState> open_mcp(sdk::McpSession session, const json::object& info) override;

private:
    // Checks that need no connection: the launcher resolves (credential references are resolved
    // only when a connection starts).
    void precheck();
    // Closes every live connection (each session reconnects on its next call if still running).
    void close_all(const std::string& why);
    json::value test();
    json::value tools();

    json::value login(const json::object& args);
    json::value login_complete(const json::object& args);

    std::shared_ptr<Upstream> up_;
    OAuthLogins logins_;
};

}  // namespace coffer::mcp_server
