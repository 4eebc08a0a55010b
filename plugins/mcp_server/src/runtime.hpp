// The plugin's I/O: one Asio io_context (every upstream pipe, socket and timer lives there), run
// either on the host's network thread through the loop it lends (ABI 1.9: the host watches the
// io_context's reactor descriptor and the plugin polls it, so a relayed call crosses no thread),
// or — on an older host, or with COFFER_MCP_SERVER_IO=thread — on a thread of its own. Plus the
// registry of live child processes so none outlives the plugin. Either way "the I/O thread"
// below means the one thread that runs the io_context.
#pragma once

#include "start_queue.hpp"

#include <coffer/handoff.hpp>
#include <coffer/sdk.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
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

    // Starts the I/O (again, after a shutdown): on the host's loop when it lends one.
    void start();
    // Kills every child still registered, lets pending work drain (bounded), joins the thread.
    void shutdown();

    // Valid while running (between start and shutdown).
    asio::io_context& io() { return *io_; }
    const sdk::Host& host() const { return host_; }
    bool on_io_thread() const;
    bool running() const;
    // True when the io_context runs on the host's loop (set by start()).
    bool lent() const { return lent_; }
    // Runs `fn` on the I/O thread (in posting order) with one wake-up — the way in for the host's
    // threads (see coffer/handoff.hpp). False when not running: `fn` was dropped.
    bool post(std::function<void()> fn);

    // Runs `f` on the I/O thread and waits for it (inline when already there, when the loop is
    // not running, or when it stops before getting to `f`; `f` runs exactly once either way).
    template <typename F> void run_sync(F&& f) {
        if (on_io_thread() || !running()) {
            f();
            if (lent_) wake();  // what `f` queued on the io_context runs in the loop's next turn
            return;
        }
        struct Shared {
            std::atomic<bool> claimed{false};
            std::promise<void> done;
        };
        auto shared = std::make_shared<Shared>();
        auto fut = shared->done.get_future();
        auto* fp = &f;
        bool queued = post([shared, fp] {
            if (shared->claimed.exchange(true)) return;
            try {
                (*fp)();
            } catch (...) {
            }
            shared->done.set_value();
        });
        while (!queued || fut.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
            if ((!queued || !running() || io_->stopped()) && !shared->claimed.exchange(true)) {
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
    bool start_lent();  // under mu_
    void stop_lent();
    // The lent loop's callbacks: the reactor is ready / a turn was asked for. Loop thread.
    static void on_ready(void* self, std::uint32_t events);
    static void on_turn(void* self);
    void drive();
    // Loop thread, outside drive(): have the loop run the io_context soon (once).
    void wake();

    const sdk::Host& host_;
    // Recreated at every start: destroying it at shutdown joins Asio's internal resolver thread
    // and drops whatever handlers were left.
    std::unique_ptr<asio::io_context> io_ = std::make_unique<asio::io_context>();
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
    std::unique_ptr<Handoff> handoff_;  // lives from start() until the loop has ended
    std::thread thread_;
    std::thread::id thread_id_;
    // The lent loop (ABI 1.9): set by start(), read by any thread.
    std::atomic<bool> lent_{false};
    std::uint64_t watch_id_ = 0;           // the host's watch of the reactor descriptor
    std::atomic<std::uint64_t> turn_id_{0};  // a deferred drive() the loop still owes us (0: none)
    int driving_depth_ = 0;                // loop thread only: inside drive()
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
