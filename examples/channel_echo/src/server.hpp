// The toy platform's "server side", inside the adapter: a TCP listener on 127.0.0.1 and one I/O
// thread (poll) for every client connection. Inbound MSG lines go to the host; outbound lines
// (ACK, SEND, EDIT, TYPING) go to every connected client.
#pragma once

#include <coffer/sdk.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace channel_echo {

class Server {
public:
    // Throws coffer::sdk::Error when the port cannot be bound.
    Server(std::uint16_t port, coffer::sdk::Channel channel);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    std::uint16_t port() const { return port_; }
    // Any thread.
    void broadcast(std::string line);

private:
    // What outlives the server: the host may acknowledge a message after the server stopped.
    struct Outbox {
        std::mutex mu;
        std::vector<std::string> lines;
        int wake_write = -1;
        bool closed = false;
        void push(std::string line);
    };
    void run();

    coffer::sdk::Channel channel_;
    std::shared_ptr<Outbox> outbox_ = std::make_shared<Outbox>();
    int listen_fd_ = -1, wake_read_ = -1;
    std::uint16_t port_ = 0;
    std::thread thread_;
};

}  // namespace channel_echo
