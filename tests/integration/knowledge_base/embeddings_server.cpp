// The stand-in embeddings endpoint (see embeddings_server.hpp).
#include "embeddings_server.hpp"

#include <boost/json.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <stdexcept>

namespace coffer::test {

namespace json = boost::json;

namespace {

constexpr int kDims = 64;

std::uint32_t fnv1a(const std::string& s) {
    std::uint32_t h = 2166136261u;
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
    return h;
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

std::vector<float> EmbeddingsServer::vector_of(const std::string& text) {
    std::vector<float> v(kDims, 0.0f);
    std::string word;
    auto flush = [&] {
        if (word.size() > 2) v[fnv1a(lower(word)) % kDims] += 1.0f;  // short words carry little
        word.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
        auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {  // one token per non-ASCII character
            flush();
            std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            word = text.substr(i, n);
            v[fnv1a(word) % kDims] += 1.0f;
            word.clear();
            i += n;
            continue;
        }
        if (std::isalnum(c)) word += static_cast<char>(c);
        else flush();
        ++i;
    }
    flush();
    double norm = 0;
    for (float x : v) norm += double(x) * x;
    if (norm == 0) {
        v[0] = 1.0f;
        norm = 1;
    }
    for (auto& x : v) x = static_cast<float>(x / std::sqrt(norm));
    return v;
}

EmbeddingsServer::EmbeddingsServer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(listen_fd_, 16) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
        ::pipe2(wake_, O_CLOEXEC) != 0)
        throw std::runtime_error("embeddings server: cannot listen");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { loop(); });
}

EmbeddingsServer::~EmbeddingsServer() {
    char b = 1;
    (void)!::write(wake_[1], &b, 1);
    if (thread_.joinable()) thread_.join();
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
}

std::string EmbeddingsServer::last_authorization() const {
    std::lock_guard<std::mutex> g(mu_);
    return authorization_;
}

std::vector<std::string> EmbeddingsServer::inputs() const {
    std::lock_guard<std::mutex> g(mu_);
    return inputs_;
}

void EmbeddingsServer::loop() {
    for (;;) {
        pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) continue;
        if (fds[1].revents) return;
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        serve(fd);
        ::close(fd);
    }
}

void EmbeddingsServer::serve(int fd) {
    std::string in;
    char buf[65536];
    std::size_t body_at = std::string::npos, length = 0;
    while (true) {
        auto n = ::read(fd, buf, sizeof buf);
        if (n <= 0) return;
        in.append(buf, static_cast<std::size_t>(n));
        if (body_at == std::string::npos) {
            auto end = in.find("\r\n\r\n");
            if (end == std::string::npos) continue;
            body_at = end + 4;
            auto head = lower(in.substr(0, end));
            auto cl = head.find("content-length:");
            if (cl != std::string::npos) length = std::stoul(head.substr(cl + 15));
            auto au = head.find("authorization:");
            std::lock_guard<std::mutex> g(mu_);
            authorization_.clear();
            if (au != std::string::npos) {
                auto eol = in.find("\r\n", au);
                authorization_ = in.substr(au + 14, eol - au - 14);
                while (!authorization_.empty() && authorization_.front() == ' ') authorization_.erase(0, 1);
            }
        }
        if (in.size() >= body_at + length) break;
    }
    ++requests_;
    boost::system::error_code ec;
    auto req = json::parse(in.substr(body_at, length), ec);
    json::array data;
    std::string model = "test-embed";
    if (!ec && req.is_object()) {
        if (auto* m = req.as_object().if_contains("model"); m && m->is_string()) model = std::string(m->as_string());
        json::array inputs;
        if (auto* i = req.as_object().if_contains("input")) {
            if (i->is_array()) inputs = i->as_array();
            else inputs.push_back(*i);
        }
        {
            std::lock_guard<std::mutex> g(mu_);
            for (auto& in : inputs) inputs_.push_back(in.is_string() ? std::string(in.as_string()) : std::string());
        }
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            json::array vec;
            for (float x : vector_of(inputs[k].is_string() ? std::string(inputs[k].as_string()) : std::string()))
                vec.push_back(static_cast<double>(x));
            data.push_back(json::object{{"object", "embedding"}, {"index", k}, {"embedding", std::move(vec)}});
        }
    }
    auto body = json::serialize(json::object{{"object", "list"}, {"data", std::move(data)}, {"model", model},
                                             {"usage", json::object{{"prompt_tokens", 1}, {"total_tokens", 1}}}});
    std::string out = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body;
    std::size_t sent = 0;
    while (sent < out.size()) {
        auto n = ::write(fd, out.data() + sent, out.size() - sent);
        if (n <= 0) return;
        sent += static_cast<std::size_t>(n);
    }
}

}  // namespace coffer::test
