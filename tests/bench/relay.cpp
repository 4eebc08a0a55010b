// coffer-bench-relay <command> [args...]: the cheapest possible process in the middle of a stdio
// MCP path. It starts <command> with pipes and copies bytes both ways (its stdin to the child's
// stdin, the child's stdout to its stdout) with one poll loop on one thread: no parsing, no
// framing, no allocation per message. coffer-bench-gateway puts one or two of these between its
// client and the upstream to measure what merely adding processes to the path costs on the
// machine at hand — the floor under any gateway built of a shim and a daemon.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace {

// Writes all of buf; false when the reader is gone.
bool write_all(int fd, const char* buf, ssize_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, buf, static_cast<size_t>(n));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        buf += w;
        n -= w;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: coffer-bench-relay <command> [args...]\n");
        return 2;
    }
    ::signal(SIGPIPE, SIG_IGN);
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) return 1;
    pid_t pid = ::fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        ::dup2(to_child[0], 0);
        ::dup2(from_child[1], 1);
        ::execvp(argv[1], argv + 1);
        std::perror("coffer-bench-relay: exec");
        ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    static char buf[1 << 16];
    pollfd fds[2] = {{0, POLLIN, 0}, {from_child[0], POLLIN, 0}};
    const int out[2] = {to_child[1], 1};
    for (;;) {
        int r = ::poll(fds, 2, -1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;
        bool done = false;
        for (int i = 0; i < 2 && !done; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n > 0 && write_all(out[i], buf, n)) continue;
            if (i == 1) done = true;  // the child's output ended, or our reader is gone
            else {                    // our input ended: so does the child's; drain its output
                fds[0].fd = -1;
                ::close(to_child[1]);
            }
        }
        if (done) break;
    }
    if (fds[0].fd >= 0) ::close(to_child[1]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return 0;
}
