// The shim's fast way to the daemon (ADR 0019): its Unix-domain socket (daemon.json
// "mcp_socket"), one MCP session per connection, messages framed as on a stdio pipe. Connects,
// authenticates with the daemon token (one hello line and its answer), then carries lines both
// ways. Runs on the shim's io_context; callbacks come on its thread.
#pragma once

#include "shim/stdio.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <memory>
#include <string>

namespace coffer::shim {

class LocalLink {
public:
    enum class Refusal { none, unreachable, unauthorized, protocol };
    struct Handlers {
        std::function<void()> on_ready;                   // the daemon took the token
        std::function<void(std::string line)> on_message; // a message from the daemon
        // The link is over (or never came up: then `refusal` says why). Called once.
        std::function<void(Refusal refusal, const std::string& why)> on_closed;
    };
    LocalLink(boost::asio::io_context& io, std::string path, std::string token, std::size_t max_message,
              Handlers handlers);
    ~LocalLink();
    LocalLink(const LocalLink&) = delete;
    LocalLink& operator=(const LocalLink&) = delete;

    void start();
    void send(std::string line);  // only once ready
    void close();                 // no callbacks after this
    bool ready() const { return ready_; }
    // The longest message the daemon takes (from its hello answer; 0 = not said).
    std::size_t max_message() const { return daemon_max_; }

private:
    void on_line(std::string line);
    void closed(Refusal refusal, const std::string& why);

    boost::asio::io_context& io_;
    std::string path_, token_;
    std::size_t max_message_;
    Handlers handlers_;
    int fd_ = -1;
    std::unique_ptr<LineReader> reader_;
    std::unique_ptr<LineWriter> writer_;
    boost::asio::steady_timer hello_timer_;
    bool ready_ = false, over_ = false;
    std::size_t daemon_max_ = 0;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for callbacks that outlive us
};

}  // namespace coffer::shim
