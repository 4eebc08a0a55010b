// Test support: a minimal MCP client over raw HTTP for the gateway's integration tests — legacy
// Streamable HTTP sessions (initialize, Mcp-Session-Id), answers as JSON or SSE, the GET stream.
#pragma once

#include "daemon_fixture.hpp"
#include "http_stream.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace coffer::test {

struct McpReply {
    int status = 0;
    std::map<std::string, std::string> headers;  // the ones the tests look at
    std::string body;                            // the answer's raw text (the last SSE event, or the body)
    boost::json::value json;                     // body parsed (null when not JSON)
    std::vector<boost::json::value> before;      // SSE messages ahead of the answer
    bool streamed = false;
};

class McpClient {
public:
    explicit McpClient(Daemon& d) : d_(d) {}

    // initialize (+ notifications/initialized). Returns the initialize reply.
    McpReply initialize(const std::string& version = "2025-11-25", boost::json::object meta = {},
                        boost::json::object capabilities = {});
    // A request with the next id; answers read as JSON or SSE.
    McpReply request(const std::string& method, boost::json::object params = {}, bool accept_sse = true);
    McpReply notify(const std::string& method, boost::json::object params = {});
    // Any body, with this session's headers (+ extra).
    McpReply post(const std::string& body, const std::map<std::string, std::string>& extra = {}, bool accept_sse = true,
                  const std::string& expect_id = "");
    boost::json::value call_tool(const std::string& name, boost::json::object args = {});
    std::unique_ptr<HttpStream> open_stream();  // GET /mcp
    int end_session();                          // DELETE /mcp

    std::map<std::string, std::string> headers() const;
    const std::string& session() const { return session_; }
    int last_id() const { return next_id_ - 1; }

private:
    Daemon& d_;
    std::string session_, version_;
    int next_id_ = 1;
};

std::vector<std::string> names_of(const boost::json::value& list_reply, const char* member = "tools",
                                  const char* field = "name");
// The plugin status of resource mcp_echo:<name> ({open, opened, closed, cancelled, last_session}).
boost::json::object echo_status(Daemon& d, const std::string& name);
void add_echo(Daemon& d, const std::string& name, const std::string& config = "{}", const std::string& extra = "");
// Registers the mcp_server resource `name` running `command args…` over stdio (throws with the
// daemon's answer when it is refused).
void add_stdio_server(Daemon& d, const std::string& name, const std::string& command,
                      const std::vector<std::string>& args = {});

// A real daemon on a temporary vault with the mcp_echo provider plugin installed, started and
// ready (throws with the daemon's log when it does not start).
struct EchoDaemon : StartedDaemon {
    explicit EchoDaemon(std::map<std::string, std::string> env = {}) : StartedDaemon({"mcp_echo"}, std::move(env)) {}
};

}  // namespace coffer::test
