// Test support: a raw loopback connection for hostile-input tests — send any bytes, read what
// comes back, and tell whether (and when) the server closed the connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::test {

class RawConn {
public:
    explicit RawConn(std::uint16_t port);  // connects to 127.0.0.1:port; ok() tells whether it did
    ~RawConn();
    RawConn(RawConn&& other) noexcept;
    RawConn& operator=(RawConn&& other) noexcept;
    RawConn(const RawConn&) = delete;
    RawConn& operator=(const RawConn&) = delete;

    bool ok() const { return fd_ >= 0; }
    // Sends every byte; false when the server has closed or reset the connection.
    bool send(std::string_view bytes);
    // Reads until the server closes, or until `quiet` passes without a byte; `closed` tells which.
    std::string read_until_close(std::chrono::milliseconds quiet, bool* closed = nullptr);
    // Reads one whole response (head plus Content-Length body); empty if none arrives in `limit`.
    std::string read_response(std::chrono::milliseconds limit);
    // Waits up to `limit` for the server to close (EOF or reset), discarding what arrives; the
    // time it took, or nothing when the connection is still open.
    std::optional<std::chrono::milliseconds> wait_closed(std::chrono::milliseconds limit);
    // Without waiting: has the server closed (EOF or reset)? Bytes that arrived are discarded.
    bool closed_now();
    void close();

private:
    int fd_ = -1;
    bool eof_ = false;
};

// How many responses a raw byte capture holds (status lines "HTTP/1.x NNN ", also one right
// after the previous body).
int count_responses(const std::string& raw);
// The status code of the first response in a raw capture, 0 if none.
int first_status(const std::string& raw);
// The body of the first response in a raw capture (after the blank line).
std::string first_body(const std::string& raw);

// CPU time (user + system) a process has used so far, from /proc/<pid>/stat.
std::chrono::milliseconds cpu_time(int pid);
// How many file descriptors a process has open, from /proc/<pid>/fd.
int open_fds(int pid);
// How many accepted TCP connections on local `port` a process holds open (its socket descriptors
// matched against /proc/net/tcp and tcp6; the listening socket is not counted). Unlike open_fds,
// files and pipes the process opens for its own work do not change it.
int held_connections(int pid, std::uint16_t port);
// What a process's descriptors point to, one per line ("7 -> socket:[1234]"), for failure messages.
std::string describe_fds(int pid);

}  // namespace coffer::test
