// The provider state for one (downstream session, mcp_server resource) pair: its own upstream
// connection, started lazily on the first request and replaced after it dies (G-7, G-11).
// ABI calls arrive on the host's thread and are posted to the I/O thread; none blocks, except
// the destructor (= provider close), which waits for the I/O thread to fail every pending call
// and kill the child, so nothing reaches the session after close returns.
#pragma once

#include "connection.hpp"
#include "upstream.hpp"

#include <coffer/sdk.hpp>

#include <memory>
#include <string>

namespace coffer::mcp_server {

class Session : public sdk::McpSessionState {
public:
    Session(std::shared_ptr<Upstream> up, sdk::McpSession session, const json::object& info);
    ~Session() override;

    void request(sdk::McpCall call, std::string_view method, std::string_view params_json) override;
    void cancel(coffer_call* call) override;
    void respond(std::uint64_t token, std::string_view result_json, std::string_view error_json) override;
    void notify(std::string_view method, std::string_view params_json) override;  // ABI 1.4

    struct Core;  // lives on the I/O thread

private:
    std::shared_ptr<Core> core_;
};

}  // namespace coffer::mcp_server
