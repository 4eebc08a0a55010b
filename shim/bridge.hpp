// The shim's core: client messages from stdio → POSTs to the daemon's /mcp (Streamable HTTP),
// responses and server-initiated messages (JSON bodies, SSE streams, the GET stream) → stdout.
// Owns the session (Mcp-Session-Id, negotiated protocol version), detect-or-spawn of the daemon,
// and the failure model (docs/mcp-gateway.md):
//  - a request the daemon may have seen is never sent twice; when the daemon goes away it is
//    answered with a JSON-RPC error at once (a broken connection or, at the latest, the pid
//    watchdog's next tick, 250 ms);
//  - a message the daemon cannot have seen (connect/write failed, 404 for an expired session,
//    401 after a token rotation) is queued and sent again once the daemon is back (found or
//    respawned) and the session re-initialized with the client's original initialize params.
#pragma once

#include "shim/options.hpp"

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>

namespace coffer::shim {

// Runs the shim on stdin/stdout until the client closes stdin (or a signal); returns the exit
// code.
int run(const Options& options);

class Bridge;

// For tests: a bridge over arbitrary descriptors on a caller's io_context.
std::shared_ptr<Bridge> make_bridge(boost::asio::io_context& io, const Options& options, int in_fd,
                                    int out_fd, std::function<void(int code)> on_exit);
void start_bridge(const std::shared_ptr<Bridge>& bridge);

}  // namespace coffer::shim
