// How a Connection talks to its upstream: newline-free JSON-RPC messages in both directions.
// Implementations: StdioTransport (a child process) and HttpTransport (Streamable HTTP with the
// legacy HTTP+SSE fallback). Everything runs on the runtime's I/O thread; no callback is made
// after close().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::mcp_server {

class TransportEvents {
public:
    virtual ~TransportEvents() = default;
    // One JSON-RPC message (or a batch array) from the upstream. `context` is the id of our
    // request whose HTTP response stream carried it (Streamable HTTP), else nullopt.
    virtual void on_message(std::string_view text, std::optional<std::int64_t> context) = 0;
    // A message we sent as request `id` could not be delivered (HTTP status, refused POST);
    // the request fails, the transport lives on.
    virtual void on_send_failed(std::int64_t id, std::string error) = 0;
    // The transport is gone (child exited, session expired, stream broken). `runner_missing`
    // when the launcher turned out not to exist.
    virtual void on_closed(std::string error, bool runner_missing) = 0;
    // Our request `id` still waits for its response (HTTP resumes a broken response stream only
    // while it does).
    virtual bool awaiting(std::int64_t id) const = 0;
    // HTTP: the upstream refused a request with 401 (its token is missing, expired or revoked);
    // called before that request's on_send_failed.
    virtual void on_unauthorized() {}
};

// How one message goes out beyond its text (HTTP only; stdio ignores it).
struct SendOptions {
    // Extra request headers: 2026-07-28 mirrors the method, name and annotated arguments.
    std::vector<std::pair<std::string, std::string>> headers;
    // The era probe (server/discover): an HTTP failure without a JSON-RPC body is reported
    // through on_send_failed and tells nothing else (no switch to the legacy HTTP+SSE transport).
    bool probe = false;
};

class Transport {
public:
    virtual ~Transport() = default;
    // Begins (spawn the child / nothing for HTTP). Failures are reported through on_closed.
    virtual void open() = 0;
    // Sends one message; `request_id` when it is a request of ours (for on_send_failed/context).
    virtual void send(std::string message, std::optional<std::int64_t> request_id) = 0;
    virtual void send_with(std::string message, std::optional<std::int64_t> request_id, SendOptions options) {
        (void)options;
        send(std::move(message), request_id);
    }
    // Initialization finished with this protocol version: HTTP adds MCP-Protocol-Version from
    // now on and opens its GET stream for server-initiated messages.
    virtual void initialized(const std::string& protocol_version) { (void)protocol_version; }
    // The upstream speaks the stateless revision `protocol_version` (2026-07-28): HTTP sends the
    // MCP-Protocol-Version header on every request, keeps no session and opens no GET stream.
    virtual void stateless(const std::string& protocol_version) { (void)protocol_version; }
    // HTTP: drops the exchange of our request `id` (2026-07-28: closing a request's stream is
    // how it is cancelled); nothing is reported for it afterwards.
    virtual void abandon(std::int64_t id) { (void)id; }
    // HTTP: requests from now on carry this OAuth access token (a refreshed one).
    virtual void bearer(const std::string& access_token) { (void)access_token; }
    // Releases everything (kills the child's process group / DELETEs the HTTP session).
    virtual void close() = 0;
    // The child's pid (stdio), or 0.
    virtual long pid() const { return 0; }
};

}  // namespace coffer::mcp_server
