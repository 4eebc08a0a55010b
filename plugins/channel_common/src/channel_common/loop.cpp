#include "channel_common/loop.hpp"

#include <pthread.h>
#include <signal.h>

namespace coffer::channel_common {

void Loop::start() {
    std::lock_guard<std::mutex> g(mu_);
    if (thread_.joinable()) return;
    io_ = std::make_unique<asio::io_context>(1);
    work_.emplace(asio::make_work_guard(*io_));
    handoff_ = std::make_unique<Handoff>(*io_);
    thread_ = std::thread([io = io_.get(), on_error = on_error_] {
        // A write to a peer that went away must fail with EPIPE, not end the process.
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
        for (;;) {
            try {
                io->run();
                return;
            } catch (const std::exception& e) {
                if (on_error) on_error(std::string("unexpected exception on the channel's I/O thread: ") + e.what());
            } catch (...) {
                if (on_error) on_error("unexpected exception on the channel's I/O thread");
            }
        }
    });
}

void Loop::stop() {
    std::unique_lock<std::mutex> g(mu_);
    if (!thread_.joinable()) return;
    work_.reset();
    io_->stop();
    auto t = std::move(thread_);
    g.unlock();
    t.join();
    g.lock();
    handoff_.reset();  // once the loop has ended (Handoff's rule): queued and later posts are dropped
    io_.reset();  // destroys the coroutines still waiting (a pending long poll, queued sends)
}

bool Loop::running() const {
    std::lock_guard<std::mutex> g(mu_);
    return thread_.joinable();
}

bool Loop::post(std::function<void()> fn) const {
    std::lock_guard<std::mutex> g(mu_);
    return handoff_ && handoff_->post(std::move(fn));
}

Handoff::Sender Loop::sender() const {
    std::lock_guard<std::mutex> g(mu_);
    return handoff_ ? handoff_->sender() : Handoff::Sender();
}

}  // namespace coffer::channel_common
