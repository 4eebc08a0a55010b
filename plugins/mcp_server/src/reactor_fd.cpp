#include "reactor_fd.hpp"

#include <boost/asio/detail/reactor.hpp>
#include <boost/version.hpp>

#include <unistd.h>

#include <string>

namespace coffer::mcp_server {

#if defined(BOOST_ASIO_HAS_EPOLL) && defined(BOOST_ASIO_HAS_TIMERFD) && BOOST_VERSION >= 107000

namespace {
using Reactor = boost::asio::detail::epoll_reactor;
using EpollMember = int Reactor::*;

// Explicit instantiation may name a private member; the friend function hands the pointer out.
EpollMember epoll_member();
template <EpollMember M> struct Expose {
    friend EpollMember epoll_member() { return M; }
};
template struct Expose<&Reactor::epoll_fd_>;

bool is_epoll(int fd) {
    if (fd < 0) return false;
    char target[64] = {};
    auto link = "/proc/self/fd/" + std::to_string(fd);
    auto n = ::readlink(link.c_str(), target, sizeof target - 1);
    return n > 0 && std::string(target, static_cast<std::size_t>(n)) == "anon_inode:[eventpoll]";
}
}  // namespace

int reactor_fd(boost::asio::io_context& io) {
    if (!boost::asio::has_service<Reactor>(io)) return -1;
    int fd = boost::asio::use_service<Reactor>(io).*epoll_member();
    return is_epoll(fd) ? fd : -1;
}

#else

int reactor_fd(boost::asio::io_context&) { return -1; }

#endif

}  // namespace coffer::mcp_server
