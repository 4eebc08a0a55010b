#include "stdio_transport.hpp"

#include "spawn.hpp"

#include <coffer/eager_io.hpp>

#include <boost/asio/write.hpp>

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace coffer::mcp_server {

namespace {
constexpr std::size_t kStderrTail = 2048;
constexpr std::size_t kStderrLine = 300;  // of the upstream's last stderr line in an error
constexpr std::size_t kFirstReadChunk = 4 * 1024;
constexpr std::size_t kMaxReadChunk = 64 * 1024;
constexpr auto kGrace = std::chrono::milliseconds(200);

// "/usr/bin/env: 'node': No such file or directory" → "node" (coreutils quotes with ‘’ in
// UTF-8 locales, '' or "" elsewhere).
std::string missing_interpreter(const std::string& tail) {
    auto p = tail.find("env: ");
    if (p == std::string::npos || tail.find("No such file or directory", p) == std::string::npos) return {};
    static const std::pair<std::string_view, std::string_view> quotes[] = {{"\xE2\x80\x98", "\xE2\x80\x99"}, {"'", "'"}, {"\"", "\""}};
    for (auto& [open, close] : quotes) {
        if (tail.compare(p + 5, open.size(), open) != 0) continue;
        auto start = p + 5 + open.size();
        auto end = tail.find(close, start);
        if (end == std::string::npos) return {};
        return tail.substr(start, end - start);
    }
    return {};
}
}  // namespace

StdioTransport::StdioTransport(Runtime& rt, std::shared_ptr<const ServerConfig> cfg, TransportEvents& events)
    : rt_(rt), cfg_(std::move(cfg)), events_(&events), in_(rt.io()), out_(rt.io()), err_(rt.io()), pidfd_(rt.io()),
      grace_(rt.io()), poll_(rt.io()) {}

StdioTransport::~StdioTransport() {
    // Never leave a child behind, even if close() was skipped.
    if (pid_ > 0 && !reaped_) {
        kill_group();
        int st = 0;
        ::waitpid(static_cast<pid_t>(pid_), &st, 0);
        rt_.child_exited(pid_);
    }
}

void StdioTransport::open() {
    auto env = child::environment(cfg_->env);
    std::string cwd = expand_home(cfg_->cwd);
    auto resolved = resolve_command(cfg_->command, child::env_value(env, "PATH"), cwd);
    auto self = shared_from_this();
    if (resolved.path.empty()) {
        asio::post(rt_.io(), [self, e = resolved.error] {
            if (!self->closed_ && !self->reported_) {
                self->reported_ = true;
                self->events_->on_closed(e, true);
            }
        });
        return;
    }
    std::vector<std::string> argv{cfg_->command};
    argv.insert(argv.end(), cfg_->args.begin(), cfg_->args.end());
    std::string error;
    auto spawned = child::spawn(resolved.path, argv, env, cwd, error, /*stdin_pipe=*/true);
    if (!spawned) {
        asio::post(rt_.io(), [self, error] {
            if (!self->closed_ && !self->reported_) {
                self->reported_ = true;
                self->events_->on_closed(error, false);
            }
        });
        return;
    }
    pid_ = spawned->pid;
    rt_.child_started(pid_, cfg_->describe());
    in_.assign(spawned->in);
    out_.assign(spawned->out);
    err_.assign(spawned->err);
    watch_exit();
    read_stdout();
    read_stderr();
    // What was sent before the upstream was up goes out on the next turn: a write that fails at
    // once must not report the upstream gone from inside open().
    asio::post(rt_.io(), [self] { self->write_next(); });
}

void StdioTransport::send(std::string message, std::optional<std::int64_t>) {
    if (closed_ || reported_) return;
    wqueue_.append(message);
    wqueue_.push_back('\n');
    if (writing_ || flush_posted_) return;
    // Messages sent during this turn (a batch of calls handed over at once) share one write.
    flush_posted_ = true;
    asio::post(rt_.io(), [self = shared_from_this()] {
        self->flush_posted_ = false;
        self->write_next();
    });
}

void StdioTransport::write_next() {
    if (writing_ || wqueue_.empty() || !in_.is_open()) return;
    writing_ = true;
    wsending_.clear();
    wsending_.swap(wqueue_);
    // Most often the pipe takes it all at once, and this turn goes on without a posted completion
    // (coffer/eager_io.hpp); the rest, if any, is written asynchronously.
    boost::system::error_code ec;
    auto n = eager_io::write_now(in_, asio::buffer(wsending_), ec);
    if (ec || n == wsending_.size()) return written(ec);
    asio::async_write(in_, asio::buffer(wsending_) + n,
                      [self = shared_from_this()](boost::system::error_code ec, std::size_t) { self->written(ec); });
}

void StdioTransport::written(boost::system::error_code ec) {
    writing_ = false;
    if (closed_) return;
    if (ec) {
        wqueue_.clear();
        stdout_ended("cannot write to the upstream: " + ec.message());
        return;
    }
    if (wsending_.capacity() > (1u << 20)) std::string().swap(wsending_);
    write_next();
}

void StdioTransport::read_stdout() {
    auto self = shared_from_this();
    if (rbuf_.empty()) rbuf_.resize(kFirstReadChunk);
    out_.async_read_some(asio::buffer(rbuf_), [self](boost::system::error_code ec, std::size_t n) {
        if (self->closed_) return;
        // A read that filled the buffer: the upstream is busy, read more at a time (an idle
        // session keeps a small buffer; ~4 KiB per upstream instead of 64).
        if (n == self->rbuf_.size() && self->rbuf_.size() < kMaxReadChunk) self->rbuf_.resize(self->rbuf_.size() * 2);
        bool too_large = false;
        self->lines_.feed(
            self->rbuf_.data(), n,
            [&](std::string_view line) {
                if (self->closed_) return self->lines_.halt();
                self->events_->on_message(line, std::nullopt);
            },
            [&](std::size_t) {
                too_large = true;
                self->lines_.halt();
            });
        if (self->closed_) return;
        if (too_large) return self->stdout_ended("the upstream sent a message larger than 64 MiB");
        if (ec) {
            self->lines_.finish([&](std::string_view line) { self->events_->on_message(line, std::nullopt); });
            if (!self->closed_) self->stdout_ended("");
            return;
        }
        self->read_stdout();
    });
}

void StdioTransport::read_stderr() {
    auto self = shared_from_this();
    ebuf_.resize(4096);
    err_.async_read_some(asio::buffer(ebuf_), [self](boost::system::error_code ec, std::size_t n) {
        if (ec || self->closed_) return;
        self->stderr_tail_.append(self->ebuf_.data(), n);
        if (self->stderr_tail_.size() > kStderrTail)
            self->stderr_tail_.erase(0, self->stderr_tail_.size() - kStderrTail);
        self->read_stderr();
    });
}

void StdioTransport::watch_exit() {
#ifdef SYS_pidfd_open
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid_), 0));
    if (fd >= 0) {
        pidfd_.assign(fd);
        auto self = shared_from_this();
        pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, [self](boost::system::error_code ec) {
            if (ec == asio::error::operation_aborted && self->reaped_) return;
            self->poll_exit();
        });
        return;
    }
#endif
    poll_exit();
}

// Reaps the child if it exited; otherwise checks again shortly (only without a pidfd, or when
// the pidfd wait was interrupted).
void StdioTransport::poll_exit() {
    if (reaped_) return;
    // Look without reaping: while the leader is a zombie its group id cannot be reused, so the
    // group (grandchildren included) is killed before the pid is released.
    siginfo_t info{};
    int r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if ((r == 0 && info.si_pid == static_cast<pid_t>(pid_)) || (r < 0 && errno == ECHILD)) {
        kill_group();
        int status = 0;
        ::waitpid(static_cast<pid_t>(pid_), &status, 0);
        exited(status);
        return;
    }
    auto self = shared_from_this();
    poll_.expires_after(std::chrono::milliseconds(20));
    poll_.async_wait([self](boost::system::error_code) { self->poll_exit(); });
}

void StdioTransport::exited(int status) {
    reaped_ = true;
    exited_ = true;
    status_ = status;
    boost::system::error_code ignore;
    pidfd_.close(ignore);
    poll_.cancel();
    rt_.child_exited(pid_);
    if (closed_) return;
    if (eof_) finish();
    else {
        auto self = shared_from_this();
        grace_.expires_after(kGrace);
        grace_.async_wait([self](boost::system::error_code ec) {
            if (!ec) self->finish();
        });
    }
}

void StdioTransport::stdout_ended(std::string why) {
    if (eof_) return;
    eof_ = true;
    eof_why_ = std::move(why);
    if (exited_) {
        finish();
        return;
    }
    // Give the child a moment to exit by itself so its real status is reported, then kill it.
    auto self = shared_from_this();
    grace_.expires_after(kGrace);
    grace_.async_wait([self](boost::system::error_code ec) {
        if (ec) return;
        if (!self->exited_) self->kill_group();
        self->finish();
    });
}

std::string StdioTransport::exit_text() const {
    std::string text;
    if (!eof_why_.empty()) text = eof_why_;
    else if (!exited_) text = "the upstream closed its stdout";
    else if (WIFEXITED(status_)) text = "the upstream exited with status " + std::to_string(WEXITSTATUS(status_));
    else if (WIFSIGNALED(status_)) text = "the upstream was killed by signal " + std::to_string(WTERMSIG(status_));
    else text = "the upstream exited";
    auto line = last_line(stderr_tail_, kStderrLine);
    if (!line.empty()) text += " (stderr: " + line + ")";
    return text;
}

void StdioTransport::finish() {
    if (reported_ || closed_) return;
    reported_ = true;
    grace_.cancel();
    bool runner = false;
    std::string text = exit_text();
    if (exited_ && WIFEXITED(status_) && WEXITSTATUS(status_) == 127) {
        auto interp = missing_interpreter(stderr_tail_);
        if (!interp.empty()) {
            runner = true;
            text = "runner not installed: " + interp;
        }
    }
    boost::system::error_code ignore;
    in_.close(ignore);
    out_.close(ignore);
    err_.close(ignore);
    events_->on_closed(text, runner);
}

void StdioTransport::kill_group() {
    if (pid_ > 0 && !reaped_) ::kill(-static_cast<pid_t>(pid_), SIGKILL);
}

void StdioTransport::close() {
    if (closed_) return;
    closed_ = true;
    grace_.cancel();
    boost::system::error_code ignore;
    in_.close(ignore);
    out_.close(ignore);
    err_.close(ignore);
    if (pid_ > 0 && !reaped_) {
        kill_group();
        // The pidfd (or poll) wait reaps it and reports child_exited.
    }
}

}  // namespace coffer::mcp_server
