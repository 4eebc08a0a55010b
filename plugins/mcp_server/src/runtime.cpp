#include "runtime.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>

namespace coffer::mcp_server {

bool Runtime::running() const {
    std::lock_guard<std::mutex> g(mu_);
    return thread_.joinable();
}

void Runtime::start() {
    std::lock_guard<std::mutex> g(mu_);
    if (thread_.joinable()) return;
    if (!io_) io_ = std::make_unique<asio::io_context>();
    blocking_stop_ = false;
    work_.emplace(asio::make_work_guard(*io_));
    handoff_ = std::make_unique<Handoff>(*io_);
    std::promise<std::thread::id> id;
    auto fut = id.get_future();
    thread_ = std::thread([this, &id] {
        // A write to an upstream that died must fail with EPIPE, not kill the process.
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
        id.set_value(std::this_thread::get_id());
        for (;;) {
            try {
                io_->run();
                return;
            } catch (const std::exception& e) {
                host_.error(std::string("mcp_server I/O thread: unexpected exception: ") + e.what());
            } catch (...) {
                host_.error("mcp_server I/O thread: unknown exception");
            }
        }
    });
    thread_id_ = fut.get();
}

bool Runtime::blocking(std::function<void()> job) {
    std::lock_guard<std::mutex> g(mu_);
    if (!thread_.joinable() || blocking_stop_) return false;
    blocking_jobs_.push_back(std::move(job));
    if (!blocking_thread_.joinable())
        blocking_thread_ = std::thread([this] {
            for (;;) {
                std::function<void()> next;
                {
                    std::unique_lock<std::mutex> lk(mu_);
                    blocking_cv_.wait(lk, [this] { return blocking_stop_ || !blocking_jobs_.empty(); });
                    if (blocking_stop_) return;
                    next = std::move(blocking_jobs_.front());
                    blocking_jobs_.pop_front();
                }
                try {
                    next();
                } catch (...) {
                }
            }
        });
    blocking_cv_.notify_one();
    return true;
}

void Runtime::shutdown() {
    std::thread t;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (!thread_.joinable()) return;
        work_.reset();
    }
    // The blocking-work thread first: its job may post to the loop, which still runs.
    std::thread b;
    std::deque<std::function<void()>> dropped;
    {
        std::lock_guard<std::mutex> g(mu_);
        blocking_stop_ = true;
        b = std::move(blocking_thread_);
        dropped.swap(blocking_jobs_);
    }
    blocking_cv_.notify_all();
    if (b.joinable()) b.join();
    dropped.clear();
    // Whatever sessions are still open were abandoned by the host: kill their children now (the
    // I/O thread reaps them and reports child_exited), then let the loop drain.
    kill_all_children();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < deadline && !io_->stopped()) {
        std::lock_guard<std::mutex> g(mu_);
        if (children_.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    io_->stop();
    {
        std::lock_guard<std::mutex> g(mu_);
        t = std::move(thread_);
    }
    if (t.joinable()) t.join();
    thread_id_ = {};
    {
        std::lock_guard<std::mutex> g(mu_);
        handoff_.reset();  // the loop has ended; what is still queued is dropped
    }
    io_.reset();
    // Anything the loop did not reap in time: reap here (the group was SIGKILLed).
    std::map<long, std::string> left;
    {
        std::lock_guard<std::mutex> g(mu_);
        left.swap(children_);
    }
    for (auto& [pid, desc] : left) {
        ::kill(-static_cast<pid_t>(pid), SIGKILL);
        int status = 0;
        ::waitpid(static_cast<pid_t>(pid), &status, 0);
        host_.child_exited(pid);
    }
}

bool Runtime::post(std::function<void()> fn) {
    Handoff::Sender to_io;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (!thread_.joinable() || !handoff_) return false;
        to_io = handoff_->sender();
    }
    return to_io.post(std::move(fn));
}

void Runtime::child_started(long pid, const std::string& description) {
    {
        std::lock_guard<std::mutex> g(mu_);
        children_[pid] = description;
    }
    host_.child_started(pid, description);
}

void Runtime::child_exited(long pid) {
    {
        std::lock_guard<std::mutex> g(mu_);
        if (!children_.erase(pid)) return;
    }
    host_.child_exited(pid);
}

void Runtime::kill_all_children() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [pid, desc] : children_) ::kill(-static_cast<pid_t>(pid), SIGKILL);
}

}  // namespace coffer::mcp_server
