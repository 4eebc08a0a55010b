// Handing work to the thread that runs an Asio io_context, from any other thread, with a single
// wake-up. Header-only; used by the host's MCP gateway and by plugins with their own I/O thread.
//
// Why not asio::post: when the target thread sleeps in epoll_wait, post() interrupts it while
// still holding the scheduler's lock. The woken thread then blocks on that lock at once and has to
// be woken a second time — two extra context switches per hand-off (see docs/decisions/0012).
// Here the poster appends to a queue under a lock of its own, releases it, and only then signals
// an eventfd that the target's reactor is reading; redundant signals are skipped while one is
// pending.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace coffer {

class Handoff {
    struct State {
        std::mutex mu;
        std::vector<std::function<void()>> items;
        bool signaled = false;  // an eventfd signal is pending: later posts need not signal again
        bool closed = false;
        bool direct = true;     // false: the eventfd is unusable, posts fall back to asio::post
        int fd = -1;            // the eventfd (owned)
        boost::asio::io_context::executor_type exec;
        explicit State(boost::asio::io_context& io) : exec(io.get_executor()) {}
        ~State() {
            if (fd >= 0) ::close(fd);
        }
    };

public:
    // Posting end; cheap to copy, may outlive the Handoff (posts then drop their function).
    class Sender {
    public:
        Sender() = default;
        // Any thread. Runs `fn` on the io_context's thread, in posting order. Once the Handoff is
        // closed or destroyed, `fn` is destroyed without running (like the handlers of a
        // destroyed io_context). Returns false then.
        bool post(std::function<void()> fn) const {
            if (!s_) return false;
            bool signal = false;
            {
                std::lock_guard<std::mutex> g(s_->mu);
                if (s_->closed) return false;
                if (!s_->direct) {
                    boost::asio::post(s_->exec, std::move(fn));
                    return true;
                }
                s_->items.push_back(std::move(fn));
                signal = !s_->signaled;
                s_->signaled = true;
            }
            if (signal) {
                std::uint64_t one = 1;
                ssize_t n;
                do n = ::write(s_->fd, &one, sizeof one);
                while (n < 0 && errno == EINTR);
            }
            return true;
        }
        explicit operator bool() const { return static_cast<bool>(s_); }
        // True on the io_context's own thread (where a plain asio::post is the cheaper way).
        bool on_target_thread() const { return s_ && s_->exec.running_in_this_thread(); }

    private:
        friend class Handoff;
        explicit Sender(std::shared_ptr<State> s) : s_(std::move(s)) {}
        std::shared_ptr<State> s_;
    };

    // Starts reading the signal on `io` (its thread runs the posted functions).
    explicit Handoff(boost::asio::io_context& io) : state_(std::make_shared<State>(io)), desc_(io) {
        state_->direct = false;
        int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd < 0) return;
        int mine = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);  // the reader's own descriptor; the State's stays valid for posters
        boost::system::error_code ec;
        if (mine >= 0) desc_.assign(mine, ec);
        if (mine < 0 || ec) {
            if (mine >= 0 && !desc_.is_open()) ::close(mine);
            ::close(fd);
            return;
        }
        state_->fd = fd;
        state_->direct = true;
        arm();
    }
    // On the io_context's thread, or once its loop has ended.
    ~Handoff() { close(); }
    Handoff(const Handoff&) = delete;
    Handoff& operator=(const Handoff&) = delete;

    Sender sender() const { return Sender(state_); }
    bool post(std::function<void()> fn) const { return Sender(state_).post(std::move(fn)); }

    // Stops: queued functions are dropped, later posts too. Same thread rules as the destructor.
    void close() {
        std::vector<std::function<void()>> dropped;
        {
            std::lock_guard<std::mutex> g(state_->mu);
            if (state_->closed) return;
            state_->closed = true;
            dropped.swap(state_->items);
        }
        boost::system::error_code ec;
        desc_.close(ec);
    }

private:
    void arm() {
        desc_.async_read_some(boost::asio::buffer(&counter_, sizeof counter_),
                              [this, s = state_](boost::system::error_code ec, std::size_t) {
                                  if (ec == boost::asio::error::operation_aborted) return;
                                  {
                                      std::lock_guard<std::mutex> g(s->mu);
                                      if (s->closed) return;  // `this` may be gone
                                      if (ec) s->direct = false;  // unreadable: asio::post from now on
                                  }
                                  drain();
                                  if (!ec) arm();
                              });
    }

    void drain() {
        std::vector<std::function<void()>> batch;
        {
            std::lock_guard<std::mutex> g(state_->mu);
            batch.swap(state_->items);
            state_->signaled = false;  // a post from now on signals again
        }
        for (auto& fn : batch) {
            try {
                fn();
            } catch (...) {
                // A posted function must not throw; one that does must not take the others along.
            }
        }
    }

    std::shared_ptr<State> state_;
    boost::asio::posix::stream_descriptor desc_;
    std::uint64_t counter_ = 0;
};

}  // namespace coffer
