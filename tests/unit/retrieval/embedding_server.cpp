// Test support: the embeddings stand-in (see embedding_server.hpp). One connection at a time,
// HTTP/1.1 with Content-Length, Connection: close.
#include "embedding_server.hpp"

#include "bag_of_words.hpp"

#include <boost/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <stdexcept>

namespace coffer::test {
namespace {

std::string header_value(const std::string& head, const std::string& name) {
    std::string lower = head;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto at = lower.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    at += name.size() + 3;
    auto end = head.find("\r\n", at);
    std::string v = head.substr(at, end - at);
    while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    return v;
}

void send_all(int fd, const std::string& s) {
    std::size_t at = 0;
    while (at < s.size()) {
        ssize_t n = ::send(fd, s.data() + at, s.size() - at, MSG_NOSIGNAL);
        if (n <= 0) return;
        at += static_cast<std::size_t>(n);
    }
}

void reply(int fd, int status, const std::string& body, const std::string& retry_after = "") {
    std::string r = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\nConnection: close\r\n";
    if (!retry_after.empty()) r += "Retry-After: " + retry_after + "\r\n";
    send_all(fd, r + "\r\n" + body);
}

}  // namespace

EmbeddingServer::EmbeddingServer(int dim) : dim_(dim) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        throw std::runtime_error("embedding server: cannot listen");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
}

EmbeddingServer::~EmbeddingServer() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
}

void EmbeddingServer::fail_next(Failure f) {
    std::lock_guard lk(mu_);
    next_.push_back(std::move(f));
}
void EmbeddingServer::fail_always(Failure f) {
    std::lock_guard lk(mu_);
    always_ = std::move(f);
}
void EmbeddingServer::clear_failures() {
    std::lock_guard lk(mu_);
    always_.reset();
    next_.clear();
}
void EmbeddingServer::set_dimension(int dim) {
    std::lock_guard lk(mu_);
    dim_ = dim;
}
std::vector<EmbeddingServer::Request> EmbeddingServer::requests() {
    std::lock_guard lk(mu_);
    return seen_;
}
std::size_t EmbeddingServer::request_count() {
    std::lock_guard lk(mu_);
    return seen_.size();
}

void EmbeddingServer::serve() {
    while (!stop_) {
        pollfd p{listen_fd_, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        answer(fd);
        ::close(fd);
    }
}

void EmbeddingServer::answer(int fd) {
    std::string data;
    char buf[65536];
    std::size_t head_end = std::string::npos;
    std::size_t need = 0;
    for (;;) {
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return;
        data.append(buf, static_cast<std::size_t>(n));
        if (head_end == std::string::npos && (head_end = data.find("\r\n\r\n")) != std::string::npos)
            need = head_end + 4 + std::stoul(header_value(data.substr(0, head_end + 2), "content-length"));
        if (head_end != std::string::npos && data.size() >= need) break;
    }
    std::string head = data.substr(0, head_end + 2);
    auto body = boost::json::parse(data.substr(head_end + 4)).as_object();
    Request req;
    req.authorization = header_value(head, "authorization");
    req.model = std::string(body.at("model").as_string());
    req.inputs = body.at("input").as_array().size();
    if (auto* d = body.if_contains("dimensions")) req.dimensions = static_cast<int>(d->as_int64());

    std::optional<Failure> fail;
    int dim;
    {
        std::lock_guard lk(mu_);
        seen_.push_back(req);
        if (!next_.empty()) {
            fail = next_.front();
            next_.pop_front();
        } else if (always_) {
            fail = always_;
        }
        dim = req.dimensions > 0 ? req.dimensions : dim_;
    }
    if (fail) return reply(fd, fail->status, fail->body, fail->retry_after);

    boost::json::array items;
    const auto& input = body.at("input").as_array();
    for (std::size_t i = input.size(); i-- > 0;) {
        boost::json::array emb;
        for (float x : bag_of_words(std::string(input[i].as_string()), dim)) emb.push_back(x);
        items.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(emb)}});
    }
    boost::json::object out{{"object", "list"}, {"data", std::move(items)}, {"model", req.model}};
    reply(fd, 200, boost::json::serialize(out));
}

}  // namespace coffer::test
