// A supervised helper process (an external adapter, the webhook receiver): started in its own process group (coffer/child_process.hpp) with pipes
// on stdin, stdout and stderr, read and written on the channel's loop. Every stdout line is one
// JSON message for the channel; stderr lines go to the log. When it exits it is restarted after
// a capped backoff (1 s … 30 s, reset once it ran for a minute), forever; lines written while
// it is down wait (bounded) for the next one. Destroying the supervisor (the loop stopped)
// ends the whole group: SIGTERM, then SIGKILL after a grace period, and reaps it.
#pragma once

#include "channel_common/backoff.hpp"

#include <coffer/lines.hpp>
#include <coffer/sdk.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace coffer::channel_common {

namespace json = boost::json;

struct Spec {
    std::string path;  // resolved program
    std::vector<std::string> argv;
    std::vector<std::string> env;  // NAME=value
    std::string cwd;
    std::string description;  // for the host's record of children
};

class Supervisor : public std::enable_shared_from_this<Supervisor> {
public:
    struct Hooks {
        std::function<void(json::object)> message;    // one stdout line, parsed
        std::function<void(const std::string&)> log;  // stderr lines and the supervisor's own notes
        std::function<void(const std::string&)> down; // "exited with status 1; restarting in 2 s"
        std::function<void()> up;
    };
    Supervisor(boost::asio::io_context& io, Spec spec, sdk::Host host);
    ~Supervisor();
    void set_hooks(Hooks hooks) { hooks_ = std::move(hooks); }  // before run

    static boost::asio::awaitable<void> run(std::shared_ptr<Supervisor> self);
    // Loop thread: one JSON message as one line on the child's stdin.
    void write(const json::object& message);

    long pid() const { return pid_.load(); }
    long restarts() const { return restarts_.load(); }

private:
    boost::asio::awaitable<void> read_stdout();
    static boost::asio::awaitable<void> read_stderr(std::shared_ptr<Supervisor> self);
    void pump();
    void end_child(bool graceful);

    boost::asio::io_context& io_;
    Spec spec_;
    Hooks hooks_;
    sdk::Host host_;
    Backoff backoff_;
    boost::asio::steady_timer timer_;
    std::unique_ptr<boost::asio::posix::stream_descriptor> in_, out_, err_;
    std::deque<std::string> pending_;  // lines not yet written
    bool writing_ = false;
    std::atomic<long> pid_{-1}, restarts_{0};
};

}  // namespace coffer::channel_common
