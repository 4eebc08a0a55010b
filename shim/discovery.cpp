// Finding the daemon for the Forwarder: detect-or-spawn through the CLI's client library (on a
// helper thread: it blocks while a daemon starts), choosing the transport it offers, and
// dropping the link when the daemon is lost (what was in flight is answered, what was queued
// waits for the next daemon).
#include "shim/forwarder.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include <thread>

namespace coffer::shim {
namespace net = boost::asio;
using namespace std::chrono_literals;

namespace {

constexpr auto kLocateFailureHold = 1000ms;  // a failed detect-or-spawn is not retried sooner

}  // namespace

void Forwarder::locate() {
    if (link_ != Link::down || exiting_) return;
    if (locate_failed_at_ && std::chrono::steady_clock::now() - *locate_failed_at_ < kLocateFailureHold) {
        // Spawning just failed: do not hammer; answer what is waiting with that failure.
        fail_queue(rpc_error::daemon_unavailable, "cannot reach coffer-daemon: " + locate_error_);
        return;
    }
    link_ = Link::locating;
    client::EnsureOptions eo;
    eo.allow_spawn = !opts_.no_spawn;
    if (opts_.verbose) eo.note = [](const std::string& m) { Log::write(m); };
    auto self = shared_from_this();
    auto guard = net::make_work_guard(io_);
    std::thread([self, guard, vault = vault_, eo]() mutable {
        auto located = client::ensure_daemon(vault, eo);
        net::post(self->io_, [self, located = std::move(located)]() mutable { self->on_located(std::move(located)); });
        guard.reset();
    }).detach();
}

void Forwarder::on_located(core::Result<client::Located> located) {
    if (exiting_) return;
    if (!located) {
        log_.warn("cannot reach coffer-daemon: " + located.error().message);
        locate_failed(located.error().message);
        fail_queue(rpc_error::daemon_unavailable, "cannot reach coffer-daemon: " + locate_error_);
        maybe_finish();
        return;
    }
    locate_failed_at_.reset();
    const auto& info = located->daemon.info;
    if (located->spawned) log_.warn("started coffer-daemon (pid " + std::to_string(info.pid) + ", port " + std::to_string(info.port) + ")");
    else log_.note("using coffer-daemon pid " + std::to_string(info.pid) + " on port " + std::to_string(info.port));
    if (daemon_.pid != 0 && daemon_.pid != info.pid) need_reinit_ = init_params_.has_value();
    daemon_ = info;
    http_.set_port(info.port);
    if (wants_local()) return open_local();  // up once the daemon took the token
    link_ = Link::up;
    pump();
}

// No daemon to talk to for now; locate() waits a moment before trying again.
void Forwarder::locate_failed(const std::string& why) {
    link_ = Link::down;
    locate_failed_at_ = std::chrono::steady_clock::now();
    locate_error_ = why;
}

void Forwarder::link_lost(const std::string& why) {
    if (link_ != Link::up) return;
    log_.warn(why);
    link_ = Link::down;
    ++generation_;
    session_.clear();
    need_reinit_ = init_params_.has_value();
    gate_ = false;
    suspect_ = false;
    probe_timer_.cancel();
    probe_handle_ = 0;
    stop_get();
    drop_local(why);
    http_.abort_all(why); // pending requests are answered with errors (post_done)
    pump();
}

}  // namespace coffer::shim
