#include "channel_common/supervisor.hpp"

#include <coffer/child_process.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

namespace coffer::channel_common {

namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {
constexpr std::size_t kMaxLine = 4 << 20;
constexpr std::size_t kMaxPending = 1000;
constexpr std::chrono::seconds kStableRun{60};
}  // namespace

Supervisor::Supervisor(asio::io_context& io, Spec spec, sdk::Host host)
    : io_(io), spec_(std::move(spec)), host_(host), timer_(io) {}

Supervisor::~Supervisor() { end_child(true); }

void Supervisor::end_child(bool graceful) {
    auto pid = static_cast<pid_t>(pid_.exchange(-1));
    if (pid <= 0) return;
    int status = 0;
    if (graceful) {
        ::kill(-pid, SIGTERM);
        for (int i = 0; i < 100; ++i) {  // up to 1 s
            if (::waitpid(pid, &status, WNOHANG) == pid) {
                ::kill(-pid, SIGKILL);  // whatever it left in its group
                host_.child_exited(pid);
                return;
            }
            std::this_thread::sleep_for(milliseconds(10));
        }
    }
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    host_.child_exited(pid);
}

void Supervisor::write(const json::object& message) {
    pending_.push_back(json::serialize(message) + "\n");
    while (pending_.size() > kMaxPending) pending_.pop_front();  // the oldest go first while it is down
    pump();
}

void Supervisor::pump() {
    if (writing_ || !in_ || pending_.empty()) return;
    writing_ = true;
    auto self = shared_from_this();
    asio::async_write(*in_, asio::buffer(pending_.front()), [self](boost::system::error_code ec, std::size_t) {
        self->writing_ = false;
        if (ec) return;  // the child is gone; the line stays for the next one
        self->pending_.pop_front();
        self->pump();
    });
}

asio::awaitable<void> Supervisor::read_stderr(std::shared_ptr<Supervisor> self) {
    LineSplitter lines(kMaxLine);
    char buf[4096];
    for (;;) {
        boost::system::error_code ec;
        if (!self->err_) co_return;
        auto n = co_await self->err_->async_read_some(asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return;
        lines.feed(buf, n, [&](std::string_view l) { self->hooks_.log("adapter: " + std::string(l)); }, [](std::size_t) {});
    }
}

asio::awaitable<void> Supervisor::read_stdout() {
    LineSplitter lines(kMaxLine);
    char buf[8192];
    auto on_line = [&](std::string_view l) {
        boost::system::error_code ec;
        auto v = json::parse(l, ec);
        if (ec || !v.is_object()) {
            hooks_.log("adapter wrote a line that is not a JSON object (" + std::to_string(l.size()) + " bytes)");
            return;
        }
        hooks_.message(std::move(v.as_object()));
    };
    for (;;) {
        boost::system::error_code ec;
        auto n = co_await out_->async_read_some(asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;
        lines.feed(buf, n, on_line, [&](std::size_t size) { hooks_.log("adapter line of " + std::to_string(size) + " bytes dropped"); });
    }
    lines.finish(on_line);
}

asio::awaitable<void> Supervisor::run(std::shared_ptr<Supervisor> self) {
    for (;;) {
        std::string error;
        auto child = child::spawn(self->spec_.path, self->spec_.argv, self->spec_.env, self->spec_.cwd, error, true);
        std::string why;
        auto started = std::chrono::steady_clock::now();
        if (!child) {
            why = error;
        } else {
            self->pid_ = child->pid;
            self->host_.child_started(child->pid, self->spec_.description.empty() ? self->spec_.path : self->spec_.description);
            self->in_ = std::make_unique<asio::posix::stream_descriptor>(self->io_, child->in);
            self->out_ = std::make_unique<asio::posix::stream_descriptor>(self->io_, child->out);
            self->err_ = std::make_unique<asio::posix::stream_descriptor>(self->io_, child->err);
            asio::co_spawn(self->io_, read_stderr(self), asio::detached);
            self->hooks_.up();
            self->pump();
            co_await self->read_stdout();  // until the child closes its stdout (it exited)
            self->in_.reset();
            self->out_.reset();
            self->err_.reset();
            self->writing_ = false;
            int status = 0;
            auto pid = static_cast<pid_t>(self->pid_.exchange(-1));
            for (int i = 0; i < 200 && ::waitpid(pid, &status, WNOHANG) == 0; ++i) {  // up to 2 s to exit
                self->timer_.expires_after(milliseconds(10));
                boost::system::error_code ec;
                co_await self->timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            }
            ::kill(-pid, SIGKILL);  // it, if it closed stdout but lingers, and anything left in its group
            if (::waitpid(pid, &status, WNOHANG) == 0) ::waitpid(pid, &status, 0);
            self->host_.child_exited(pid);
            why = WIFEXITED(status)     ? "exited with status " + std::to_string(WEXITSTATUS(status))
                  : WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                        : std::string("ended");
            ++self->restarts_;
        }
        if (std::chrono::steady_clock::now() - started > kStableRun) self->backoff_.reset();
        auto delay = self->backoff_.next();
        self->hooks_.down("the adapter process " + why + "; restarting in " + std::to_string((delay.count() + 999) / 1000) + " s");
        self->timer_.expires_after(delay);
        boost::system::error_code ec;
        co_await self->timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

}  // namespace coffer::channel_common
