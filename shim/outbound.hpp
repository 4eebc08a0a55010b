// A client message (or one of the shim's own) on its way to the daemon: the text to send, what
// peek() found in it, the headers it needs, and the part it plays in the session handshake.
#pragma once

#include "shim/http.hpp"
#include "shim/message.hpp"

#include <string>

namespace coffer::shim {

enum class Role {
    normal,
    client_initialize,    // the client's initialize: opens the session; later messages wait for it
    client_initialized,   // notifications/initialized: later messages wait for its 202
    internal_initialize,  // the shim re-initializing a lost session with the client's params
    internal_initialized, // … and repeating notifications/initialized
    delete_session,       // DELETE at the end
};

struct Outbound {
    std::string body;
    MsgKind kind = MsgKind::invalid;
    std::string id;     // raw JSON id of a request
    std::string method;
    HeaderList extra;   // per-message headers (stateless-era Mcp-Name, MCP-Protocol-Version)
    Role role = Role::normal;
    int session_retries = 0; // sent again after a 404 (expired session)
    bool auth_retried = false;

    // The shim's own re-initialization, which the client never asked for.
    bool internal() const { return role == Role::internal_initialize || role == Role::internal_initialized; }
    // One of the two handshake messages: nothing else goes out while one is in flight.
    bool handshake() const {
        return internal() || role == Role::client_initialize || role == Role::client_initialized;
    }
    // For log lines: the method, or what the message is when it has none.
    std::string what(const char* otherwise = "message") const {
        return method.empty() ? std::string(otherwise) : method;
    }
};

}  // namespace coffer::shim
