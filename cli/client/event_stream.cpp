#include "client/event_stream.hpp"

#include "client/codes.hpp"

#include <coffer/sse.hpp>

#include <boost/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace coffer::client {

namespace {

core::Error unreachable(const std::string& what) {
    return core::Error::make(code::daemon_unreachable, what);
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// Decodes a chunked body: feed() raw bytes, get body bytes; done() after the last chunk.
class Dechunker {
public:
    std::string feed(std::string_view in) {
        raw_.append(in);
        std::string out;
        for (;;) {
            if (remaining_ == 0) {
                auto eol = raw_.find("\r\n");
                if (eol == std::string::npos) break;
                if (eol == 0 && after_chunk_) {  // the CRLF that ends a chunk's data
                    raw_.erase(0, 2);
                    after_chunk_ = false;
                    continue;
                }
                remaining_ = std::strtoull(raw_.substr(0, eol).c_str(), nullptr, 16);
                raw_.erase(0, eol + 2);
                if (remaining_ == 0) {
                    done_ = true;
                    break;
                }
            }
            auto n = std::min<std::size_t>(remaining_, raw_.size());
            if (n == 0) break;
            out.append(raw_, 0, n);
            raw_.erase(0, n);
            remaining_ -= n;
            if (remaining_ == 0) after_chunk_ = true;
        }
        return out;
    }
    bool done() const { return done_; }

private:
    std::string raw_;
    std::size_t remaining_ = 0;
    bool after_chunk_ = false, done_ = false;
};

}  // namespace

core::Result<void> read_event_stream(const DaemonInfo& daemon, const std::string& target,
                                     const std::optional<std::string>& last_event_id,
                                     const std::function<bool(const StreamedEvent&)>& on_event) {
    Fd s{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    if (s.fd < 0) return unreachable(std::string("cannot open a socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(daemon.port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        return unreachable("cannot connect to the daemon on port " + std::to_string(daemon.port) + ": " + std::strerror(errno));
    std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(daemon.port) +
                      "\r\nAccept: text/event-stream\r\nX-Coffer-Token: " + daemon.token + "\r\nX-Coffer-Actor: cli\r\n";
    if (last_event_id) req += "Last-Event-ID: " + *last_event_id + "\r\n";
    req += "\r\n";
    for (std::size_t sent = 0; sent < req.size();) {
        auto n = ::send(s.fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return unreachable("the daemon closed the connection");
        sent += static_cast<std::size_t>(n);
    }
    std::string head;
    char buf[16384];
    std::size_t head_end = std::string::npos;
    while (head_end == std::string::npos) {
        auto n = ::recv(s.fd, buf, sizeof buf, 0);
        if (n <= 0) return unreachable("the daemon closed the event stream before answering");
        head.append(buf, static_cast<std::size_t>(n));
        head_end = head.find("\r\n\r\n");
    }
    std::string rest = head.substr(head_end + 4);
    head.resize(head_end);
    int status = head.size() > 12 ? std::atoi(head.c_str() + 9) : 0;
    bool chunked = head.find("chunked") != std::string::npos;
    if (status != 200) {
        // An error envelope: read what there is (it is short) and report it.
        for (;;) {
            auto n = ::recv(s.fd, buf, sizeof buf, 0);
            if (n <= 0) break;
            rest.append(buf, static_cast<std::size_t>(n));
        }
        if (chunked) rest = Dechunker().feed(rest);
        boost::system::error_code ec;
        auto v = boost::json::parse(rest, ec);
        if (!ec && v.is_object())
            if (auto* e = v.as_object().if_contains("error"); e && e->is_object()) {
                auto& o = e->as_object();
                auto text = [&](const char* k) {
                    auto* x = o.if_contains(k);
                    return x && x->is_string() ? std::string(x->as_string()) : std::string();
                };
                return core::Error::make(text("code"), text("message"));
            }
        return core::Error::make("HTTP_" + std::to_string(status), "the daemon answered HTTP " + std::to_string(status));
    }
    Dechunker body;
    coffer::SseParser sse;
    bool stop = false;
    auto feed = [&](std::string_view raw) {
        auto bytes = chunked ? body.feed(raw) : std::string(raw);
        sse.feed(bytes, [&](const coffer::SseEvent& e) {
            if (stop) return;
            if (!on_event(StreamedEvent{std::string(e.type), std::string(e.data), std::string(e.id)})) stop = true;
        });
    };
    feed(rest);
    while (!stop && !(chunked && body.done())) {
        auto n = ::recv(s.fd, buf, sizeof buf, 0);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            return unreachable(std::string("the event stream broke: ") + std::strerror(errno));
        }
        feed(std::string_view(buf, static_cast<std::size_t>(n)));
    }
    return {};
}

}  // namespace coffer::client
