// stdio upstream (G-4): the server is a child process speaking newline-delimited JSON-RPC on its
// stdin/stdout. It leads its own process group, recorded with the host (upstream-pids/); close()
// SIGKILLs the whole group and the child is reaped asynchronously (pidfd), then forgotten.
#pragma once

#include <coffer/lines.hpp>

#include "config.hpp"
#include "runtime.hpp"
#include "transport.hpp"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <deque>
#include <memory>
#include <string>

namespace coffer::mcp_server {

class StdioTransport : public Transport, public std::enable_shared_from_this<StdioTransport> {
public:
    // Largest message accepted from the upstream.
    static constexpr std::size_t kMaxMessage = 64 * 1024 * 1024;

    StdioTransport(Runtime& rt, std::shared_ptr<const ServerConfig> cfg, TransportEvents& events);
    ~StdioTransport() override;

    void open() override;
    void send(std::string message, std::optional<std::int64_t> request_id) override;
    void close() override;
    long pid() const override { return pid_; }

private:
    void read_stdout();
    void read_stderr();
    void write_next();
    void written(boost::system::error_code ec);  // the write in progress is done
    void watch_exit();
    void poll_exit();
    void exited(int status);
    void stdout_ended(std::string why);
    void finish();  // report on_closed once, after both the exit and EOF (or a grace period)
    void kill_group();
    std::string exit_text() const;

    Runtime& rt_;
    std::shared_ptr<const ServerConfig> cfg_;
    TransportEvents* events_;
    asio::posix::stream_descriptor in_, out_, err_, pidfd_;
    asio::steady_timer grace_, poll_;
    std::string rbuf_, ebuf_, stderr_tail_;
    LineSplitter lines_{kMaxMessage};
    std::string wqueue_;    // messages waiting, each with its line end
    std::string wsending_;  // the batch being written
    bool writing_ = false;
    bool flush_posted_ = false;
    long pid_ = -1;
    bool closed_ = false, reported_ = false, exited_ = false, eof_ = false, reaped_ = false;
    int status_ = 0;
    std::string eof_why_;
};

}  // namespace coffer::mcp_server
