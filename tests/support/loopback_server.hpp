// Test support: an HTTP/1.1 server on 127.0.0.1 (any free port) with its own Asio thread, for the
// platform stand-ins (Telegram Bot API, SeaTalk Open Platform). Each request goes to a coroutine
// handler, which may wait (a long poll) on timers of io().
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace coffer::test {

struct ServerRequest {
    std::string method, target, body;
    std::map<std::string, std::string> headers;  // lower-case names
};

struct ServerResponse {
    int status = 200;
    std::string body;  // JSON
    std::vector<std::pair<std::string, std::string>> headers;
};

class LoopbackServer {
public:
    using Handler = std::function<boost::asio::awaitable<ServerResponse>(ServerRequest)>;
    explicit LoopbackServer(Handler handler);
    ~LoopbackServer();  // stops the thread; handlers still waiting are dropped
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    std::uint16_t port() const { return port_; }
    boost::asio::io_context& io() { return *io_; }

private:
    std::unique_ptr<boost::asio::io_context> io_;
    std::uint16_t port_ = 0;
    std::thread thread_;
};

}  // namespace coffer::test
