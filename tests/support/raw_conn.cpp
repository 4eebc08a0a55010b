// Test support: RawConn and the /proc readers for hostile-input tests (see raw_conn.hpp).
#include "raw_conn.hpp"
#include "socket.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace coffer::test {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

RawConn::RawConn(std::uint16_t port) : fd_(connect_loopback(port)) {}

RawConn::~RawConn() { close(); }

RawConn::RawConn(RawConn&& other) noexcept : fd_(other.fd_), eof_(other.eof_) { other.fd_ = -1; }

RawConn& RawConn::operator=(RawConn&& other) noexcept {
    if (this != &other) {
        close();
        fd_ = other.fd_;
        eof_ = other.eof_;
        other.fd_ = -1;
    }
    return *this;
}

void RawConn::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

bool RawConn::send(std::string_view bytes) {
    if (fd_ < 0) return false;
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

namespace {
// One read of whatever is there after waiting up to `wait`: >0 bytes appended, 0 = the peer
// closed (EOF or reset), -1 = nothing arrived in time.
int read_some(int fd, milliseconds wait, std::string& out) {
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(wait.count()));
    if (r == 0) return -1;
    if (r < 0) return errno == EINTR ? -1 : 0;
    char buf[65536];
    auto n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
        out.append(buf, static_cast<std::size_t>(n));
        return static_cast<int>(n);
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return -1;
    return 0;
}
}  // namespace

std::string RawConn::read_until_close(milliseconds quiet, bool* closed) {
    std::string out;
    if (closed) *closed = eof_;
    if (fd_ < 0 || eof_) return out;
    for (;;) {
        int r = read_some(fd_, quiet, out);
        if (r == 0) {
            eof_ = true;
            break;
        }
        if (r < 0) break;
    }
    if (closed) *closed = eof_;
    return out;
}

std::string RawConn::read_response(milliseconds limit) {
    std::string out;
    if (fd_ < 0) return out;
    auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
        auto head_end = out.find("\r\n\r\n");
        if (head_end != std::string::npos) {
            std::size_t length = 0;
            auto at = out.find("\r\nContent-Length: ");
            if (at != std::string::npos && at < head_end) length = std::strtoul(out.c_str() + at + 18, nullptr, 10);
            if (out.size() >= head_end + 4 + length) return out;
        }
        auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
        int r = read_some(fd_, std::max(left, milliseconds(1)), out);
        if (r == 0) {
            eof_ = true;
            break;
        }
    }
    return out;
}

std::optional<milliseconds> RawConn::wait_closed(milliseconds limit) {
    auto start = Clock::now();
    if (fd_ < 0 || eof_) return milliseconds(0);
    std::string sink;
    while (Clock::now() - start < limit) {
        auto left = std::chrono::duration_cast<milliseconds>(limit - (Clock::now() - start));
        int r = read_some(fd_, std::max(left, milliseconds(1)), sink);
        sink.clear();
        if (r == 0) {
            eof_ = true;
            return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        }
    }
    return std::nullopt;
}

bool RawConn::closed_now() {
    if (fd_ < 0 || eof_) return true;
    std::string sink;
    for (;;) {
        int r = read_some(fd_, milliseconds(0), sink);
        sink.clear();
        if (r < 0) return false;
        if (r == 0) {
            eof_ = true;
            return true;
        }
    }
}

int count_responses(const std::string& raw) {
    // A status line may follow the previous body directly: count "HTTP/1.x NNN " anywhere.
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    int n = 0;
    for (std::size_t at = 0; (at = raw.find("HTTP/1.", at)) != std::string::npos; at += 7)
        if (at + 13 <= raw.size() && (raw[at + 7] == '0' || raw[at + 7] == '1') && raw[at + 8] == ' ' &&
            digit(raw[at + 9]) && digit(raw[at + 10]) && digit(raw[at + 11]) && raw[at + 12] == ' ')
            ++n;
    return n;
}

int first_status(const std::string& raw) {
    if (raw.rfind("HTTP/1.", 0) != 0 || raw.size() < 12) return 0;
    return std::atoi(raw.c_str() + 9);
}

std::string first_body(const std::string& raw) {
    auto head_end = raw.find("\r\n\r\n");
    return head_end == std::string::npos ? std::string() : raw.substr(head_end + 4);
}

milliseconds cpu_time(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string content;
    std::getline(in, content);
    auto close_paren = content.rfind(')');
    if (close_paren == std::string::npos) return milliseconds(0);
    std::istringstream fields(content.substr(close_paren + 2));
    // After the command: state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    // cmajflt utime(14) stime(15).
    std::string skip;
    for (int i = 3; i < 14; ++i) fields >> skip;
    long long utime = 0, stime = 0;
    fields >> utime >> stime;
    long ticks = ::sysconf(_SC_CLK_TCK);
    return milliseconds((utime + stime) * 1000 / (ticks > 0 ? ticks : 100));
}

namespace {

// Calls fn(entry) for each descriptor of a process (/proc/<pid>/fd); none when it is gone.
template <class Fn> void each_fd(int pid, Fn fn) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        fn(it->path());
}

// What a descriptor points to ("socket:[1234]", a path), or "" when it closed meanwhile.
std::string fd_target(const std::filesystem::path& entry) {
    std::error_code ec;
    return std::filesystem::read_symlink(entry, ec).string();
}

// The inodes of the sockets a process has open ("socket:[inode]" links).
std::set<std::string> socket_inodes(int pid) {
    std::set<std::string> inodes;
    each_fd(pid, [&](const std::filesystem::path& entry) {
        auto target = fd_target(entry);
        if (target.rfind("socket:[", 0) == 0 && target.back() == ']') inodes.insert(target.substr(8, target.size() - 9));
    });
    return inodes;
}

}  // namespace

int open_fds(int pid) {
    int n = 0;
    each_fd(pid, [&](const std::filesystem::path&) { ++n; });
    return n;
}

int held_connections(int pid, std::uint16_t port) {
    auto mine = socket_inodes(pid);
    int n = 0;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line);  // the column names
        while (std::getline(in, line)) {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            std::istringstream fields(line);
            std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
            if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode))
                continue;
            auto colon = local.rfind(':');
            if (colon == std::string::npos || state == "0A") continue;  // 0A: LISTEN
            if (std::stoul(local.substr(colon + 1), nullptr, 16) != port) continue;
            n += mine.count(inode) ? 1 : 0;
        }
    }
    return n;
}

std::string describe_fds(int pid) {
    std::string out;
    each_fd(pid, [&](const std::filesystem::path& entry) {
        out += entry.filename().string() + " -> " + fd_target(entry) + "\n";
    });
    return out;
}

}  // namespace coffer::test
