// Running the shim: the stdio MCP server that MCP clients launch, bridged to coffer-daemon's MCP
// endpoint by a Forwarder (forwarder.hpp).
#pragma once

#include "shim/options.hpp"

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>

namespace coffer::shim {

// Runs the shim on stdin/stdout until the client closes stdin (or a signal); returns the exit
// code.
int run(const Options& options);

class Forwarder;

// For tests: a forwarder over arbitrary descriptors on a caller's io_context.
std::shared_ptr<Forwarder> make_forwarder(boost::asio::io_context& io, const Options& options, int in_fd,
                                          int out_fd, std::function<void(int code)> on_exit);
void start_forwarder(const std::shared_ptr<Forwarder>& forwarder);

}  // namespace coffer::shim
