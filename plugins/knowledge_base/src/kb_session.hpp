// One MCP client session's view of one knowledge base: its tools (search, read, list, write when
// writable) and their calls, each checked on the network thread and run on the index worker.
// `all_kbs` searches reach exactly the session's peers (the knowledge bases its agent may see).
#pragma once

#include "library.hpp"

#include "tool_session.hpp"

#include <string>
#include <vector>

namespace coffer::plugins::knowledge_base {

class KbSession : public knowledge::ToolSession {
public:
    KbSession(Library& lib, std::string uid, const json::object& session_info);

protected:
    json::array tools() const override;
    void call_tool(sdk::McpCall& call, const std::string& name, const json::object& args) override;

private:
    SpecPtr self() const;
    void search(sdk::McpCall& call, const json::object& args);
    void read(sdk::McpCall& call, const json::object& args);
    void list(sdk::McpCall& call, const json::object& args);
    void write(sdk::McpCall& call, const json::object& args);

    Library& lib_;
    std::string uid_;
    std::vector<std::string> peers_;  // uids, from the session info
    std::string agent_;
};

}  // namespace coffer::plugins::knowledge_base
