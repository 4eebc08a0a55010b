// The MCP side of a knowledge kind, shared by knowledge_base and memory: one object per (client
// session, resource) pair that answers the list methods at once (tools; no resources or prompts)
// and hands tools/call to the subclass. Requests arrive on the daemon's network thread: a
// subclass checks the arguments there (cheap) and posts the work to the index worker
// (ToolSession::on_worker), which completes the call. Nothing here waits.
#pragma once

#include "engine.hpp"

#include <coffer/sdk.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace coffer::knowledge {

namespace json = boost::json;

class ToolSession : public sdk::McpSessionState {
public:
    void request(sdk::McpCall call, std::string_view method, std::string_view params_json) override;

protected:
    // The tools this session offers ({name, title?, description, inputSchema, annotations?}).
    virtual json::array tools() const = 0;
    // One tools/call of a tool named in tools(); `args` is an object. Complete `call` once, or
    // move it into a job (on_worker). An sdk::Error thrown while `call` is still here becomes a
    // tool result with isError.
    virtual void call_tool(sdk::McpCall& call, const std::string& name, const json::object& args) = 0;

    // Runs `work(index)` on the engine's worker and completes `call` with what it returns (a
    // tools/call result text). sdk::Error and retrieval::Error become isError results; the
    // plugin stopping before the job runs is answered too. A read (search, read, list, recall)
    // may run at a bulk sync's batch boundaries instead of after the whole sync.
    static void on_worker(Engine& engine, sdk::McpCall call, std::function<std::string(retrieval::Index&)> work,
                          Engine::Access access = Engine::Access::write);
};

// The session's peers: the uids in session_json's "peers" (same-kind instances this session's
// agent may see; the instance itself included).
std::vector<std::string> peer_uids(const json::object& session_info);
// session_json's "agent" and "cwd" ("" when absent).
std::string session_string(const json::object& session_info, std::string_view key);

}  // namespace coffer::knowledge
