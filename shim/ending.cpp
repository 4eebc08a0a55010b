// How the Forwarder ends: once stdin has closed and every pending request is answered (or the
// grace period is over), on a signal, or when stdout fails. The session is ended on the daemon
// (DELETE, or closing the local socket) and stdout drained before the exit code is reported.
#include "shim/forwarder.hpp"
#include "shim/http_sinks.hpp"

#include <boost/asio/post.hpp>

namespace coffer::shim {
namespace net = boost::asio;
using namespace std::chrono_literals;

namespace {

constexpr auto kDeleteTimeout = 1000ms;

}  // namespace

void Forwarder::maybe_finish() {
    if (!closing_ || exiting_) return;
    if (!queue_.empty() || pending_requests_ > 0 || link_ == Link::locating || gate_) return;
    finish("stdin closed", false);
}

void Forwarder::finish(const std::string& why, bool immediate) {
    if (exiting_) return;
    exiting_ = true;
    log_.note("exiting: " + why);
    if (reader_) reader_->stop();
    watchdog_.cancel();
    exit_timer_.cancel();
    stop_get();
    if (immediate) {
        // Nobody is waiting for these any more; no error replies.
        queue_.clear();
    }
    if (local_.link) {
        local_.link->close();  // the daemon ends the session with the connection
        net::post(io_, [l = std::shared_ptr<LocalLink>(std::move(local_.link))] {});  // we may be in its callback
    }
    if (link_ == Link::up && !session_.empty() && !stateless_mode()) return delete_session();
    exit_now(0);
}

// DELETE /mcp ends the HTTP session; the exit follows its answer, or a timeout.
void Forwarder::delete_session() {
    Outbound del;
    del.role = Role::delete_session;
    OutgoingRequest req{"DELETE", "/mcp", base_headers(true), {}};
    if (!protocol_version_.empty()) req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    auto sink = std::make_shared<PostSink>(shared_from_this(), std::move(del), true);
    http_.start(std::move(req), sink);
    exit_timer_.expires_after(kDeleteTimeout);
    exit_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec) self->exit_now(0);
    });
}

void Forwarder::exit_now(int code) {
    if (exit_done_) return;
    exit_done_ = true;
    exit_timer_.cancel();
    out_.on_drained([self = shared_from_this(), code] {
        if (self->on_exit_) self->on_exit_(code);
    });
}

}  // namespace coffer::shim
