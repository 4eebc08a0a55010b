// Is the daemon still there? The Forwarder's pid watchdog while requests are pending (a child
// of the daemon could inherit a socket and keep a dead daemon's connection open), and, over
// HTTP, the status probe after a broken connection. A dead daemon is dropped at once; a
// live-looking one (it may be in the middle of exiting) is asked for its status on a fresh
// connection before anything else is sent, so no request is written into a daemon that is
// going away.
#include "shim/forwarder.hpp"
#include "shim/http_sinks.hpp"

#include "client/process.hpp"

namespace coffer::shim {
using namespace std::chrono_literals;

namespace {

constexpr auto kWatchdogPeriod = 250ms;

}  // namespace

void ProbeSink::on_end(Failure f, const std::string& what) {
    if (generation != owner->generation() || f == Failure::aborted) return;
    owner->probe_done(f == Failure::none && status == 200,
                      f == Failure::none ? "status answered HTTP " + std::to_string(status) : what);
}

void Forwarder::connection_trouble() {
    if (link_ != Link::up || exiting_) return;
    if (!client::process_alive(daemon_.pid)) {
        link_lost("coffer-daemon (pid " + std::to_string(daemon_.pid) + ") exited");
        return;
    }
    if (suspect_) return;
    suspect_ = true;
    http_.close_idle(); // pooled connections may be dead too
    OutgoingRequest req{"GET", "/api/v1/daemon/status", {{"X-Coffer-Token", daemon_.token}, {"Accept", "application/json"}}, {}};
    probe_handle_ = http_.start(std::move(req), std::make_shared<ProbeSink>(shared_from_this()));
    probe_timer_.expires_after(2s);
    probe_timer_.async_wait([self = shared_from_this(), gen = generation_](boost::system::error_code ec) {
        if (ec || gen != self->generation_ || !self->suspect_) return;
        self->probe_done(false, "no answer to a status request within 2 s");
    });
}

void Forwarder::probe_done(bool healthy, const std::string& why) {
    if (!suspect_) return;
    suspect_ = false;
    probe_timer_.cancel();
    if (probe_handle_) {
        auto h = probe_handle_;
        probe_handle_ = 0;
        http_.abort(h, "probe over");
    }
    if (healthy) {
        log_.note("coffer-daemon is still there");
        if (!get_.handle) open_get();
        pump();
        return;
    }
    link_lost("coffer-daemon stopped answering (" + why + ")");
}

void Forwarder::arm_watchdog() {
    if (watchdog_armed_) return;
    watchdog_armed_ = true;
    watchdog_.expires_after(kWatchdogPeriod);
    watchdog_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        self->watchdog_armed_ = false;
        if (ec || self->exiting_) return;
        if (self->link_ == Link::up && self->daemon_.pid > 0 && !client::process_alive(self->daemon_.pid))
            self->link_lost("coffer-daemon (pid " + std::to_string(self->daemon_.pid) + ") exited");
        if (self->pending_requests_ > 0) self->arm_watchdog();
    });
}

}  // namespace coffer::shim
