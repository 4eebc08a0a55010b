// Test support: a pipe for writer tests — the write end for the code under test, the read end
// non-blocking so a test can take what has arrived so far without waiting.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace coffer::test {

struct PipePair {
    int r = -1, w = -1;
    PipePair() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
        r = fds[0];
        w = fds[1];
        ::fcntl(r, F_SETFL, ::fcntl(r, F_GETFL) | O_NONBLOCK);
    }
    ~PipePair() {
        if (r >= 0) ::close(r);
        if (w >= 0) ::close(w);
    }
    PipePair(const PipePair&) = delete;
    PipePair& operator=(const PipePair&) = delete;
    // What one read(2) finds, empty when nothing is there.
    std::string read_some() {
        char buf[65536];
        ssize_t n = ::read(r, buf, sizeof buf);
        return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
    }
    // Everything there is now.
    std::string drain() {
        std::string out;
        for (std::string s; !(s = read_some()).empty();) out += s;
        return out;
    }
    // No reader any more: writes fail with EPIPE.
    void close_reader() {
        ::close(r);
        r = -1;
    }
};

}  // namespace coffer::test
