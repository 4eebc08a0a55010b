#include "runtime.hpp"

#include "reactor_fd.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <string_view>

namespace coffer::mcp_server {

bool Runtime::running() const {
    std::lock_guard<std::mutex> g(mu_);
    return thread_.joinable() || lent_;
}

bool Runtime::on_io_thread() const {
    if (lent_) return host_.in_loop();
    return std::this_thread::get_id() == thread_id_;
}

namespace {
// COFFER_MCP_SERVER_IO=thread keeps the plugin's own I/O thread even on a host that lends its
// loop (to compare the two, or to step around a problem with the lent loop).
bool own_thread_asked() {
    const char* v = std::getenv("COFFER_MCP_SERVER_IO");
    return v && std::string_view(v) == "thread";
}
}  // namespace

bool Runtime::start_lent() {
    if (!host_.has_loop() || own_thread_asked()) return false;
    int fd = reactor_fd(*io_);
    if (fd < 0) return false;
    watch_id_ = host_.loop_watch(fd, COFFER_LOOP_READABLE, &Runtime::on_ready, this);
    if (!watch_id_) return false;
    lent_ = true;
    return true;
}

void Runtime::on_ready(void* self, std::uint32_t) { static_cast<Runtime*>(self)->drive(); }

void Runtime::on_turn(void* self) {
    auto* rt = static_cast<Runtime*>(self);
    rt->turn_id_ = 0;
    rt->drive();
}

void Runtime::drive() {
    ++driving_depth_;
    try {
        io_->poll();
    } catch (const std::exception& e) {
        host_.error(std::string("mcp_server I/O: unexpected exception: ") + e.what());
    } catch (...) {
        host_.error("mcp_server I/O: unknown exception");
    }
    --driving_depth_;
    if (io_->stopped()) io_->restart();
}

void Runtime::wake() {
    if (driving_depth_ > 0 || turn_id_ || !lent_) return;  // drive() polls what was queued; a turn is owed
    turn_id_ = host_.loop_defer(&Runtime::on_turn, this);
}

void Runtime::start() {
    std::lock_guard<std::mutex> g(mu_);
    if (thread_.joinable() || lent_) return;
    if (!io_) io_ = std::make_unique<asio::io_context>();
    blocking_stop_ = false;
    work_.emplace(asio::make_work_guard(*io_));
    handoff_ = std::make_unique<Handoff>(*io_);  // also brings up the reactor start_lent() looks for
    if (start_lent()) {
        host_.info("mcp_server: upstream I/O runs on the host's loop");
        return;
    }
    host_.info("mcp_server: upstream I/O runs on the plugin's own thread");
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
    if ((!thread_.joinable() && !lent_) || blocking_stop_) return false;
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
        if (!thread_.joinable() && !lent_) return;
        if (!lent_) work_.reset();
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
        {
            std::lock_guard<std::mutex> g(mu_);
            if (children_.empty()) break;
        }
        if (lent_ && on_io_thread()) drive();  // the loop is busy with us: turn it here
        else std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (lent_) stop_lent();
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

// After this the host's loop never calls us again; what is left of the io_context is this
// thread's to finish (the caller stops and destroys it).
void Runtime::stop_lent() {
    {
        std::lock_guard<std::mutex> g(mu_);
        lent_ = false;  // from now on post() queues on the Handoff, which nobody reads any more
        work_.reset();
    }
    host_.loop_cancel(watch_id_);  // returns once a drive() running on the loop has ended
    if (auto turn = turn_id_.exchange(0)) host_.loop_cancel(turn);
    watch_id_ = 0;
}

bool Runtime::post(std::function<void()> fn) {
    Handoff::Sender to_io;
    {
        std::lock_guard<std::mutex> g(mu_);
        if ((!thread_.joinable() && !lent_) || !handoff_) return false;
        to_io = handoff_->sender();
    }
    // On the lent loop's own thread: queue without a system call and have the loop turn once.
    if (lent_ && host_.in_loop()) {
        asio::post(*io_, std::move(fn));
        wake();
        return true;
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
