// The Forwarder's coordinator: construction, the queue of client messages, and which transport
// takes each one (the local socket or a POST). The roles it coordinates live beside it:
// client_side.cpp, discovery.cpp, liveness.cpp, http_post.cpp, http_answer.cpp, http_get.cpp,
// local_transport.cpp, session.cpp, ending.cpp.
#include "shim/forwarder.hpp"

#include <filesystem>

namespace coffer::shim {
namespace net = boost::asio;

Forwarder::Forwarder(net::io_context& io, Options options, int in_fd, int out_fd, std::function<void(int)> on_exit)
    : io_(io),
      opts_(std::move(options)),
      log_(opts_.verbose),
      http_(io),
      on_exit_(std::move(on_exit)),
      vault_(opts_.home),  // resolved by main (vault::resolve_home)
      out_(io, out_fd, [this](const std::string& why) { on_stdout_failed(why); }),
      in_fd_(in_fd),
      watchdog_(io),
      probe_timer_(io),
      get_(io),
      exit_timer_(io) {
    std::error_code ec;
    identity_.agent = opts_.agent;
    identity_.channels = opts_.channels;
    identity_.cwd = std::filesystem::current_path(ec).string();
}

void Forwarder::start() {
    auto self = shared_from_this();
    reader_ = std::make_unique<LineReader>(
        io_, in_fd_, opts_.max_message,
        LineReader::Handlers{[self](std::string line) { self->on_client_line(std::move(line)); },
                             [self](std::size_t n) { self->on_oversize(n); },
                             [self] { self->on_client_eof(); }});
    reader_->start();
    locate(); // early: the daemon is usually ready by the time the client's initialize arrives
}

void Forwarder::pump() {
    if (exiting_) return;
    if (link_ == Link::down) {
        if (!queue_.empty()) locate();
        return;
    }
    if (link_ == Link::locating || suspect_) return;
    if (need_reinit_ && !gate_ && !queue_.empty()) {
        start_reinit(); // lazily: only when there is something to send
        return;
    }
    while (!gate_ && !queue_.empty() && link_ == Link::up) {
        Outbound m = std::move(queue_.front());
        queue_.pop_front();
        send(std::move(m));
    }
    maybe_finish();
}

void Forwarder::send(Outbound m) {
    if (via_local(m)) return send_local(std::move(m));
    send_http(std::move(m));
}

// A message the daemon never took: the client's goes back to the front of the queue; our own
// re-initialization is done again as a whole. Either way the handshake gate closes until then.
void Forwarder::send_again(Outbound m, bool internal) {
    if (internal || m.role == Role::client_initialize || m.role == Role::client_initialized) gate_ = false;
    if (internal)
        need_reinit_ = true;
    else
        queue_.push_front(std::move(m));
}

void Forwarder::fail_queue(int code, const std::string& message) {
    auto q = std::move(queue_);
    queue_.clear();
    for (auto& m : q) {
        if (m.role == Role::client_initialize) init_params_.reset();
        reply_error(m, code, message);
    }
}

}  // namespace coffer::shim
