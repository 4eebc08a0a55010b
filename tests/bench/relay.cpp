// coffer-bench-relay <command> [args...]: the cheapest possible process in the middle of a stdio
// MCP path. It starts <command> with pipes and copies bytes both ways (its stdin to the child's
// stdin, the child's stdout to its stdout) with one poll loop on one thread: no parsing, no
// framing, no allocation per message. coffer-bench-gateway puts one or two of these between its
// client and the upstream to measure what merely adding processes to the path costs on the
// machine at hand — the floor under any gateway built of a shim and a daemon.
//
// coffer-bench-relay --cpu-ns-per-line N <command> [args...]: the same, but it spends at least N ns
// of CPU time in all (its reads, writes and polls included) per line it copies, with a busy loop on
// its thread's CPU clock before forwarding what it read: a process that costs what a real shim or
// daemon costs per message and does nothing else, so the bench can tell what a path's CPU per call
// costs on this machine from what its design costs.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

long long thread_cpu_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Tops this thread's CPU time up to `per_line` ns per line: owed grows by that per line read and
// shrinks by what the thread spent since the last look; what is still owed is spent spinning.
class CpuBudget {
public:
    explicit CpuBudget(long long per_line) : per_line_(per_line), mark_(thread_cpu_ns()) {}
    void lines(long long n) {
        if (per_line_ <= 0) return;
        owed_ += n * per_line_;
        settle();
        if (owed_ <= 0) {
            owed_ = std::max(owed_, -32 * per_line_);  // a costly start-up is not credit forever
            return;
        }
        const long long until = mark_ + owed_;
        while (thread_cpu_ns() < until) {
        }
        settle();
    }

private:
    void settle() {
        long long now = thread_cpu_ns();
        owed_ -= now - mark_;
        mark_ = now;
    }
    long long per_line_;
    long long mark_;
    long long owed_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    long long per_line_ns = 0;
    if (argc >= 3 && std::strcmp(argv[1], "--cpu-ns-per-line") == 0) {
        per_line_ns = std::atoll(argv[2]);
        argv += 2;
        argc -= 2;
    }
    if (argc < 2) {
        std::fprintf(stderr, "usage: coffer-bench-relay [--cpu-ns-per-line N] <command> [args...]\n");
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
    CpuBudget budget(per_line_ns);
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
            if (n > 0) budget.lines(std::count(buf, buf + n, '\n'));
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
