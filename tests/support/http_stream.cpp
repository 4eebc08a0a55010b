#include "http_stream.hpp"
#include "socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace coffer::test {

namespace {
std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}
}  // namespace

HttpStream::HttpStream(std::uint16_t port, const std::string& method, const std::string& target, const std::string& body,
                       const std::map<std::string, std::string>& headers)
    : port_(port) {
    fd_ = connect_loopback(port);
    if (fd_ < 0) return;
    ended_ = true;  // no response is owed yet
    send(method, target, body, headers);
}

bool HttpStream::send(const std::string& method, const std::string& target, const std::string& body,
                      const std::map<std::string, std::string>& headers) {
    if (fd_ < 0 || eof_ || !ended_) return false;
    status_ = 0;
    headers_.clear();
    body_.clear();
    chunked_ = ended_ = false;
    remaining_ = -1;
    std::string req = method + " " + target + " HTTP/1.1\r\n";
    bool has_host = false, has_type = false;
    for (auto& [k, v] : headers) {
        auto lk = lower(k);
        has_host |= lk == "host";
        has_type |= lk == "content-type";
        req += k + ": " + v + "\r\n";
    }
    if (!has_host) req += "Host: 127.0.0.1:" + std::to_string(port_) + "\r\n";
    if (!has_type && !body.empty()) req += "Content-Type: application/json\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    std::size_t sent = 0;
    while (sent < req.size()) {
        auto n = ::send(fd_, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

HttpStream::~HttpStream() { close(); }

void HttpStream::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

bool HttpStream::fill(std::chrono::steady_clock::time_point deadline) {
    if (fd_ < 0 || eof_) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    char buf[65536];
    auto n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
        eof_ = true;
        return false;
    }
    raw_.append(buf, static_cast<std::size_t>(n));
    return true;
}

bool HttpStream::read_head(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::size_t end;
    while ((end = raw_.find("\r\n\r\n")) == std::string::npos)
        if (!fill(deadline)) return false;
    auto head = raw_.substr(0, end);
    raw_.erase(0, end + 4);
    auto eol = head.find("\r\n");
    auto status_line = head.substr(0, eol);
    auto sp = status_line.find(' ');
    status_ = sp == std::string::npos ? 0 : std::atoi(status_line.c_str() + sp + 1);
    std::size_t pos = eol == std::string::npos ? head.size() : eol + 2;
    while (pos < head.size()) {
        auto e = head.find("\r\n", pos);
        if (e == std::string::npos) e = head.size();
        auto line = head.substr(pos, e - pos);
        auto colon = line.find(':');
        if (colon != std::string::npos) {
            auto v = line.substr(colon + 1);
            while (!v.empty() && v.front() == ' ') v.erase(v.begin());
            headers_[lower(line.substr(0, colon))] = v;
        }
        pos = e + 2;
    }
    chunked_ = lower(header("transfer-encoding")).find("chunked") != std::string::npos;
    if (!chunked_ && !header("content-length").empty()) remaining_ = std::atoll(header("content-length").c_str());
    if (!chunked_ && remaining_ == 0) ended_ = true;
    return true;
}

std::string HttpStream::header(const std::string& lower_name) const {
    auto it = headers_.find(lower_name);
    return it == headers_.end() ? std::string() : it->second;
}

bool HttpStream::is_event_stream() const { return header("content-type").find("text/event-stream") != std::string::npos; }

bool HttpStream::decode(std::chrono::steady_clock::time_point deadline) {
    if (ended_) return false;
    if (!chunked_) {
        if (raw_.empty() && !fill(deadline)) {
            if (eof_) ended_ = true;
            return false;
        }
        std::size_t take = remaining_ < 0 ? raw_.size() : std::min<std::size_t>(raw_.size(), static_cast<std::size_t>(remaining_));
        body_ += raw_.substr(0, take);
        raw_.erase(0, take);
        if (remaining_ >= 0 && (remaining_ -= static_cast<long long>(take)) == 0) ended_ = true;
        return take > 0;
    }
    for (;;) {
        auto eol = raw_.find("\r\n");
        if (eol != std::string::npos) {
            auto size = std::stoul(raw_.substr(0, eol), nullptr, 16);
            if (size == 0) {
                ended_ = true;
                return false;
            }
            if (raw_.size() >= eol + 2 + size + 2) {
                body_ += raw_.substr(eol + 2, size);
                raw_.erase(0, eol + 2 + size + 2);
                return true;
            }
        }
        if (!fill(deadline)) {
            if (eof_) ended_ = true;
            return false;
        }
    }
}

std::optional<SseEvent> HttpStream::next_event(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        std::size_t end = body_.find("\n\n");
        while (end != std::string::npos) {
            auto block = body_.substr(0, end);
            body_.erase(0, end + 2);
            SseEvent ev;
            bool any = false, has_data = false;
            std::size_t pos = 0;
            while (pos <= block.size()) {
                auto e = block.find('\n', pos);
                if (e == std::string::npos) e = block.size();
                auto line = block.substr(pos, e - pos);
                pos = e + 1;
                if (line.empty() || line[0] == ':') continue;
                auto colon = line.find(':');
                auto field = line.substr(0, colon);
                auto value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
                if (!value.empty() && value[0] == ' ') value.erase(0, 1);
                if (field == "event") ev.event = value, any = true;
                else if (field == "id") ev.id = value, any = true;
                else if (field == "data") {
                    if (has_data) ev.data += '\n';
                    ev.data += value;
                    has_data = any = true;
                }
            }
            if (any) return ev;
            end = body_.find("\n\n");
        }
        if (!decode(deadline)) return std::nullopt;
    }
}

std::string HttpStream::body(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (decode(deadline)) {
    }
    auto out = std::move(body_);
    body_.clear();
    return out;
}

}  // namespace coffer::test
