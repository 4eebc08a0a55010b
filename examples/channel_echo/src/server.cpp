#include "server.hpp"

#include "line_protocol.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

namespace channel_echo {

namespace json = boost::json;
using coffer::sdk::Error;

void Server::Outbox::push(std::string line) {
    std::lock_guard<std::mutex> g(mu);
    if (closed) return;
    lines.push_back(std::move(line));
    char b = 1;
    (void)!::write(wake_write, &b, 1);  // a full pipe already wakes the thread
}

Server::Server(std::uint16_t port, coffer::sdk::Channel channel) : channel_(channel) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) throw Error(COFFER_E_INTERNAL, "pipe failed");
    wake_read_ = pipe_fds[0];
    outbox_->wake_write = pipe_fds[1];
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0) {
        auto err = errno;
        ::close(listen_fd_);
        ::close(wake_read_);
        ::close(outbox_->wake_write);
        throw Error(COFFER_E_UNAVAILABLE, "cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(err));
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
}

Server::~Server() {
    {
        std::lock_guard<std::mutex> g(outbox_->mu);
        outbox_->closed = true;
        char b = 0;
        (void)!::write(outbox_->wake_write, &b, 1);
    }
    if (thread_.joinable()) thread_.join();
    ::close(listen_fd_);
    ::close(wake_read_);
    std::lock_guard<std::mutex> g(outbox_->mu);
    ::close(outbox_->wake_write);
    outbox_->wake_write = -1;
}

void Server::broadcast(std::string line) { outbox_->push(std::move(line)); }

void Server::run() {
    struct Client {
        std::string in, out;
    };
    std::map<int, Client> clients;
    for (;;) {
        std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
        for (auto& [fd, c] : clients) fds.push_back({fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
        if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
        if (fds[1].revents) {
            char buf[256];
            while (::read(wake_read_, buf, sizeof buf) > 0) {
            }
            std::vector<std::string> lines;
            {
                std::lock_guard<std::mutex> g(outbox_->mu);
                if (outbox_->closed) break;
                lines.swap(outbox_->lines);
            }
            for (auto& l : lines)
                for (auto& [fd, c] : clients) c.out += l + "\n";
        }
        if (fds[0].revents & POLLIN) {
            int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd >= 0) {
                // Small lines go out at once: with Nagle's algorithm a line written right after
                // another (ACK, then TYPING) waits for the peer's delayed ACK, ~40 ms.
                int one = 1;
                ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                clients[fd];
            }
        }
        for (std::size_t i = 2; i < fds.size(); ++i) {
            int fd = fds[i].fd;
            auto& c = clients[fd];
            bool gone = (fds[i].revents & (POLLERR | POLLNVAL)) != 0;
            if (fds[i].revents & POLLIN) {
                char buf[4096];
                auto n = ::read(fd, buf, sizeof buf);
                if (n <= 0) gone = true;
                else c.in.append(buf, static_cast<std::size_t>(n));
                for (auto nl = c.in.find('\n'); nl != std::string::npos; nl = c.in.find('\n')) {
                    auto line = c.in.substr(0, nl);
                    c.in.erase(0, nl + 1);
                    if (!line.empty() && line.back() == '\r') line.pop_back();
                    auto m = parse_inbound(line);
                    if (!m) {
                        c.out += "ERR expected: MSG <id> <chat> <sender> <text>\n";
                        continue;
                    }
                    json::object env{{"id", m->id}, {"chat", m->chat}, {"sender", m->sender}, {"text", m->text},
                                     {"chat_type", "direct"}};
                    auto outbox = outbox_;
                    auto id = m->id;
                    auto st = channel_.inbound(env, [outbox, id](coffer_status s) {
                        outbox->push(s == COFFER_OK ? "ACK " + id : "NACK " + id);
                    });
                    if (st != COFFER_OK) c.out += "NACK " + id + "\n";
                }
            }
            if (!gone && (fds[i].revents & POLLOUT) && !c.out.empty()) {
                auto n = ::write(fd, c.out.data(), c.out.size());
                if (n < 0 && errno != EAGAIN) gone = true;
                else if (n > 0) c.out.erase(0, static_cast<std::size_t>(n));
            }
            if (gone) {
                ::close(fd);
                clients.erase(fd);
            }
        }
    }
    for (auto& [fd, c] : clients) ::close(fd);
}

}  // namespace channel_echo
