#include "line_client.hpp"

#include "socket.hpp"

#include <poll.h>
#include <unistd.h>

#include <stdexcept>

namespace coffer::test {

namespace {
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        char n = s[++i];
        out += n == 'n' ? '\n' : n == 'r' ? '\r' : n;
    }
    return out;
}
std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}
}  // namespace

LineClient::LineClient(std::uint16_t port) : fd_(connect_loopback(port)) {
    if (fd_ < 0) throw std::runtime_error("cannot connect to channel_echo on port " + std::to_string(port));
}

LineClient::~LineClient() {
    if (fd_ >= 0) ::close(fd_);
}

void LineClient::msg(const std::string& id, const std::string& chat, const std::string& sender, const std::string& text) {
    auto line = "MSG " + id + " " + chat + " " + sender + " " + escape(text) + "\n";
    for (std::size_t at = 0; at < line.size();) {
        auto n = ::write(fd_, line.data() + at, line.size() - at);
        if (n <= 0) throw std::runtime_error("write to channel_echo failed");
        at += static_cast<std::size_t>(n);
    }
}

std::optional<Line> LineClient::next(std::chrono::milliseconds timeout) {
    if (!stash_.empty()) {
        auto l = stash_.front();
        stash_.pop_front();
        return l;
    }
    return read(timeout);
}

bool LineClient::wait_ack(const std::string& id, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (auto l = read(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()))) {
        if (l->verb == "ACK" && l->chat == id) return true;
        stash_.push_back(*l);
    }
    return false;
}

std::optional<Line> LineClient::read(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (auto nl = buf_.find('\n'); nl != std::string::npos) {
            auto raw = buf_.substr(0, nl);
            buf_.erase(0, nl + 1);
            Line l;
            auto take = [&](std::string& into) {
                auto sp = raw.find(' ');
                into = raw.substr(0, sp);
                raw = sp == std::string::npos ? std::string() : raw.substr(sp + 1);
            };
            take(l.verb);
            if (l.verb == "ACK" || l.verb == "NACK" || l.verb == "TYPING") {
                l.chat = raw;
            } else {
                take(l.chat);
                take(l.ref);
                l.text = unescape(raw);
            }
            return l;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        char b[8192];
        auto n = ::read(fd_, b, sizeof b);
        if (n <= 0) return std::nullopt;
        buf_.append(b, static_cast<std::size_t>(n));
    }
}

std::vector<Line> LineClient::until(const std::string& verb, const std::string& needle, std::chrono::milliseconds timeout) {
    std::vector<Line> out;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (auto l = next(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()))) {
        out.push_back(*l);
        if (l->verb == verb && l->text.find(needle) != std::string::npos) return out;
    }
    std::string seen;
    for (auto& l : out) seen += "\n  " + l.verb + " " + l.chat + " " + l.ref + " " + l.text.substr(0, 120);
    throw std::runtime_error("no " + verb + " line containing '" + needle + "'; before it:" + seen);
}

}  // namespace coffer::test
