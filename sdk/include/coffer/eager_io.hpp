// Writing to a busy Asio stream with one system call fewer per write (docs/decisions/0050).
// Header-only; used by the shim, the daemon's local socket and the mcp_server plugin's stdio pipes.
//
// async_write posts its completion even when the first write(2) took everything. The posted handler
// costs the event loop another turn, and each turn a non-blocking epoll_wait(2) that finds nothing;
// on the virtual machines Coffer runs on each system call costs about a microsecond, and a relayed
// message is written twice per hop. write_now() writes what the descriptor takes at once, so the
// caller finishes in the same turn and only what is left goes through async_write.
//
// Reads are left to async_read_some. Its first read(2) after a read that emptied the stream fails
// with EAGAIN, but waiting for readiness instead (async_wait) costs an epoll_ctl(2) on every call
// in Boost 1.81's reactor: one system call either way, measured.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>

#include <cstddef>
#include <utility>

namespace coffer::eager_io {

// The stream must be in non-blocking mode for the synchronous calls below; Asio's flag is checked
// first, since setting it is an ioctl(2) every time.
template <class Stream>
bool make_non_blocking(Stream& s, boost::system::error_code& ec) {
    ec.clear();
    if (!s.non_blocking()) s.non_blocking(true, ec);
    return !ec;
}

// Writes as much of `buffers` as the stream takes now, without blocking or waiting: the number of
// bytes written. `ec` is set only on a real failure (a full pipe is not one: fewer bytes come back).
template <class Stream, class Buffers>
std::size_t write_now(Stream& s, const Buffers& buffers, boost::system::error_code& ec) {
    if (!make_non_blocking(s, ec)) {
        ec.clear();  // cannot tell: let the asynchronous write do it all
        return 0;
    }
    std::size_t n = s.write_some(buffers, ec);
    if (ec == boost::asio::error::would_block || ec == boost::asio::error::try_again) ec.clear();
    return ec ? 0 : n;
}

}  // namespace coffer::eager_io
