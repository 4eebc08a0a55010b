// One MCP client session's memory tools. The session's project comes from its working directory
// (session_json "cwd"); recall searches that project's facts and the global ones, never another
// project's; forget reaches the same two scopes only.
#pragma once

#include "store.hpp"

#include "tool_session.hpp"

namespace coffer::plugins::memory {

class MemorySession : public knowledge::ToolSession {
public:
    MemorySession(Store& store, const json::object& session_info);

protected:
    json::array tools() const override;
    void call_tool(sdk::McpCall& call, const std::string& name, const json::object& args) override;

private:
    void remember(sdk::McpCall& call, const json::object& args);
    void recall(sdk::McpCall& call, const json::object& args);
    void forget(sdk::McpCall& call, const json::object& args);

    Store& store_;
    std::string cwd_;
    std::string source_;  // the agent, else the client's name
};

// The tags argument checked ([] when absent).
std::vector<std::string> tags_arg(const json::object& args);

}  // namespace coffer::plugins::memory
