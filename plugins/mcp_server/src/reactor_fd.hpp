// The one descriptor that tells when an Asio io_context has something to do: its epoll reactor's
// own epoll descriptor. Readable whenever a socket, pipe, timer (Asio keeps a timerfd in the same
// set) or eventfd of that io_context is ready — so a host's loop that watches it (ABI 1.9) and
// then calls io_context::poll() runs the plugin's whole I/O on the host's thread.
//
// Asio does not publish that descriptor; reactor_fd() reads it from the reactor (the
// explicit-instantiation access rule, [temp.spec.general]/6) and checks that what it found is an
// epoll descriptor, so a different Asio fails closed: -1, and the plugin keeps its own thread.
// Call it after the io_context has a descriptor-based object (the reactor then exists).
#pragma once

#include <boost/asio/io_context.hpp>

namespace coffer::mcp_server {

int reactor_fd(boost::asio::io_context& io);

}  // namespace coffer::mcp_server
