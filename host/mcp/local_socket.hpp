// The daemon's Unix-domain socket for local MCP clients (the stdio shim): newline-delimited
// messages in both directions, as on an MCP stdio pipe. This file is only the socket layer —
// accepting (same user only), cutting lines, writing; what the lines mean is front_local.cpp.
// Everything runs on the network thread.
//
// Writes are coalesced: messages produced while one batch of input is handled (or one batch of
// provider completions) go out in one write, so a client with many calls in flight costs a
// fraction of a system call per message (docs/decisions/0019).
#pragma once

#include <coffer/lines.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace coffer::mcp {

class LocalConnection : public std::enable_shared_from_this<LocalConnection> {
public:
    struct Handlers {
        std::function<void(std::string_view line)> on_line;
        std::function<void(std::size_t bytes)> on_oversize;  // a line over the limit was dropped
        std::function<void()> on_closed;                     // once, when the connection is over
    };
    LocalConnection(boost::asio::local::stream_protocol::socket socket, std::size_t max_line);
    void start(Handlers handlers);

    // Queues `message` and a line end; sent with everything else queued in this turn.
    void write(std::string_view message);
    // Sends what is queued, then closes. No more lines are delivered.
    void close();
    bool open() const { return !closing_ && !closed_; }

private:
    void read();
    void flush();
    void sent();  // the write in progress is done
    void finish();

    boost::asio::local::stream_protocol::socket socket_;
    LineSplitter lines_;
    Handlers handlers_;
    std::string inbuf_;
    std::string queued_, sending_;
    bool flush_posted_ = false, writing_ = false, closing_ = false, closed_ = false;
    bool paused_ = false;  // reading stopped until the client takes its answers
};

class LocalListener {
public:
    using OnConnection = std::function<void(std::shared_ptr<LocalConnection>)>;
    LocalListener(boost::asio::io_context& io, std::size_t max_line);
    ~LocalListener();

    // Binds `path` (a stale socket file is replaced; the vault lock says no other daemon owns it)
    // with mode 0600 and accepts connections of this user only. Returns "" or why not.
    std::string listen(const std::filesystem::path& path, OnConnection on_connection);
    // Stops accepting and removes the socket file.
    void stop();
    const std::filesystem::path& path() const { return path_; }

private:
    void accept();

    boost::asio::io_context& io_;
    std::size_t max_line_;
    boost::asio::local::stream_protocol::acceptor acceptor_;
    boost::asio::steady_timer retry_;
    std::filesystem::path path_;
    OnConnection on_connection_;
};

}  // namespace coffer::mcp
