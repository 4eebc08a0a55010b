// An adapter's own event loop: one Asio io_context on one thread, started with the channel and
// stopped with it. Stopping ends every pending operation at once (a long poll included): the
// loop stops, its thread is joined and the io_context destroyed, which drops the coroutines
// still waiting. Work from other threads (the host's ack callbacks, send requests) comes in
// through post(), which silently drops work once the loop is stopped.
#pragma once

#include <coffer/handoff.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace coffer::channel_common {

namespace asio = boost::asio;

class Loop {
public:
    // `on_error` gets the text of an exception that escaped a handler (the loop carries on).
    explicit Loop(std::function<void(const std::string&)> on_error = {}) : on_error_(std::move(on_error)) {}
    ~Loop() { stop(); }
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    void start();
    // Any thread but the loop's own. Idempotent.
    void stop();
    bool running() const;

    // Valid between start and stop.
    asio::io_context& io() { return *io_; }
    // Any thread: runs `fn` on the loop's thread; false (and `fn` dropped) when not running.
    bool post(std::function<void()> fn) const;
    // A copyable poster that outlives the loop (posts after stop are dropped).
    Handoff::Sender sender() const;
    // Starts a coroutine on the loop (loop thread, or before start() returns work to it).
    template <typename F> void spawn(F&& make_awaitable) {
        asio::co_spawn(*io_, std::forward<F>(make_awaitable), asio::detached);
    }

private:
    std::function<void(const std::string&)> on_error_;
    mutable std::mutex mu_;
    std::unique_ptr<asio::io_context> io_;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
    std::unique_ptr<Handoff> handoff_;
    std::thread thread_;
};

}  // namespace coffer::channel_common
