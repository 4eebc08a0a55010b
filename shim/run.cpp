// The shim's process: one io_context thread, a Forwarder on stdin/stdout, and the signals that
// end it.
#include "shim/run.hpp"

#include "shim/forwarder.hpp"

#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace coffer::shim {
namespace net = boost::asio;

std::shared_ptr<Forwarder> make_forwarder(net::io_context& io, const Options& options, int in_fd, int out_fd,
                                          std::function<void(int)> on_exit) {
    return std::make_shared<Forwarder>(io, options, in_fd, out_fd, std::move(on_exit));
}

void start_forwarder(const std::shared_ptr<Forwarder>& forwarder) { forwarder->start(); }

int run(const Options& options) {
    std::signal(SIGPIPE, SIG_IGN);
    net::io_context io(1);
    int exit_code = 0;
    bool exited = false;
    auto forwarder = make_forwarder(io, options, STDIN_FILENO, STDOUT_FILENO, [&](int code) {
        exit_code = code;
        exited = true;
        io.stop();
    });
    net::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    signals.async_wait([&](boost::system::error_code ec, int sig) {
        if (!ec) forwarder->terminate("signal " + std::to_string(sig));
    });
    forwarder->start();
    io.run();
    std::fflush(stderr);
    // Detached helpers (a detect-or-spawn in progress, a stdin reader thread) may still run:
    // leave without running destructors under them.
    std::_Exit(exited ? exit_code : 0);
}

}  // namespace coffer::shim
