// A small async HTTP/1.1 server on Boost.Beast: loopback only, keep-alive, size limits, head/body/
// idle deadlines, a connection cap that makes room by closing the connection idle the longest,
// framing checked before a body is read (ADR 0023); no thread per connection (everything runs
// on the io_context it is given).
#pragma once

#include "core/result.hpp"
#include "http/limits.hpp"
#include "http/message.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <memory>

namespace coffer::http {

class Server {
public:
    Server(boost::asio::io_context& io, Handler handler, ErrorResponder on_error, Limits limits = {});
    ~Server();

    // Binds 127.0.0.1 on `port`, else the next free one of `fallbacks` ports; 0 = any free port.
    core::Result<std::uint16_t> listen(std::uint16_t port, int fallbacks);
    void stop();  // stops accepting; open connections finish their current request

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace coffer::http
