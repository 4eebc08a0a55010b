// The plugin's own I/O: one Asio io_context on one thread (every upstream pipe, socket and timer
// lives there), plus the registry of live child processes so none outlives the plugin.
#pragma once

#include "start_queue.hpp"

#include <coffer/handoff.hpp>
#include <coffer/sdk.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <deque>
#include <condition_variable>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace coffer::mcp_server {

namespace asio = boost::asio;
namespace json = boost::json;

class Runtime {
public:
    explicit Runtime(const sdk::Host& host) : host_(host) {}
    ~Runtime() { shutdown(); }
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    // Starts the I/O thread (again, after a shutdown).
    void start();
    // Kills every child still registered, lets pending work drain (bounded), joins the thread.
    void shutdown();

    // Valid while running (between start and shutdown).
    asio::io_context& io() { return *io_; }
    const sdk::Host& host() const { return host_; }
    bool on_io_thread() const { return std::this_thread::get_id() == thread_id_; }
    bool running() const;
    // Runs `fn` on the I/O thread (in posting order) with one wake-up — the way in for the host's
    // threads (see coffer/handoff.hpp). False when not running: `fn` was dropped.
    bool post(std::function<void()> fn);

    // Runs `f` on the I/O thread and waits for it (inline when already there, when the loop is
    // not running, or when it stops before getting to `f`; `f` runs exactly once either way).
    template <typename F> void run_sync(F&& f) {
        if (on_io_thread() || !running()) {
            f();
            return;
        }
        struct Shared {
            std::atomic<bool> claimed{false};
            std::promise<void> done;
        };
        auto shared = std::make_shared<Shared>();
        auto fut = shared->done.get_future();
        auto* fp = &f;
        asio::post(*io_, [shared, fp] {
            if (shared->claimed.exchange(true)) return;
            try {
                (*fp)();
            } catch (...) {
            }
            shared->done.set_value();
        });
        while (fut.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
            if (io_->stopped() && !shared->claimed.exchange(true)) {
                f();
                return;
            }
        }
    }

    // Runs `job` on the one thread for blocking work (an OAuth token refresh: a few HTTP round
    // trips with their own deadline), never on the I/O thread; the job posts its outcome back
    // with post(). Jobs run in order; those still queued at shutdown are dropped, the running one
    // is waited for. False when not running.
    bool blocking(std::function<void()> job);

    // The bound on upstreams starting at once (I/O thread only).
    StartQueue& starts() { return starts_; }

    // Child bookkeeping: recorded with the host (upstream-pids/) and here.
    void child_started(long pid, const std::string& description);
    void child_exited(long pid);

private:
    void kill_all_children();

    const sdk::Host& host_;
    // Recreated at every start: destroying it at shutdown joins Asio's internal resolver thread
    // and drops whatever handlers were left.
    std::unique_ptr<asio::io_context> io_ = std::make_unique<asio::io_context>();
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
    std::unique_ptr<Handoff> handoff_;  // lives from start() until the loop has ended
    std::thread thread_;
    std::thread::id thread_id_;
    mutable std::mutex mu_;
    std::map<long, std::string> children_;
    // The blocking-work thread (started by the first blocking(), joined by shutdown()).
    std::deque<std::function<void()>> blocking_jobs_;
    std::condition_variable blocking_cv_;
    std::thread blocking_thread_;
    bool blocking_stop_ = false;
    StartQueue starts_{[this](std::function<void()> fn) { post(std::move(fn)); }};
};

}  // namespace coffer::mcp_server
