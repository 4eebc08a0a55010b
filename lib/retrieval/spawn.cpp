// Running a helper program (see spawn.hpp).
#include "retrieval/spawn.hpp"

#include "retrieval/types.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace coffer::retrieval {
namespace {

constexpr std::size_t kStderrKeep = 4096;

struct Pipe {
    int fd[2] = {-1, -1};
    Pipe() {
        if (::pipe2(fd, O_CLOEXEC) != 0) throw Error(Error::Code::io, std::string("pipe: ") + std::strerror(errno));
    }
    ~Pipe() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
    void close_end(int i) {
        if (fd[i] >= 0) ::close(fd[i]);
        fd[i] = -1;
    }
};

pid_t start(const std::vector<std::string>& argv, Pipe& out, Pipe& err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        throw Error(Error::Code::unavailable, "cannot run " + argv[0] + ": " + std::strerror(rc));
    out.close_end(1);
    err.close_end(1);
    return pid;
}

int reap(pid_t pid, bool kill_first) {
    if (kill_first) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (kill_first) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

SpawnResult spawn_lines(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                        std::size_t max_stdout_bytes, const std::function<bool(std::string_view)>& on_line) {
    Pipe out, err;
    pid_t pid = start(argv, out, err);
    SpawnResult r;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string pending;
    std::size_t total = 0;
    bool stop = false;
    char buf[65536];
    while (!stop && (out.fd[0] >= 0 || err.fd[0] >= 0)) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            r.timed_out = stop = true;
            break;
        }
        pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
        int n = ::poll(fds, 2, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (fds[1].revents) {
            ssize_t got = ::read(err.fd[0], buf, sizeof buf);
            if (got <= 0) err.close_end(0);
            else if (r.stderr_text.size() < kStderrKeep)
                r.stderr_text.append(buf, std::min<std::size_t>(static_cast<std::size_t>(got), kStderrKeep - r.stderr_text.size()));
        }
        if (fds[0].revents) {
            ssize_t got = ::read(out.fd[0], buf, sizeof buf);
            if (got <= 0) {
                out.close_end(0);
                continue;
            }
            total += static_cast<std::size_t>(got);
            pending.append(buf, static_cast<std::size_t>(got));
            std::size_t start_at = 0, nl;
            while (!stop && (nl = pending.find('\n', start_at)) != std::string::npos) {
                stop = !on_line(std::string_view(pending).substr(start_at, nl - start_at));
                start_at = nl + 1;
            }
            pending.erase(0, start_at);
            if (!stop && total > max_stdout_bytes) r.truncated = stop = true;
        }
    }
    if (!stop && !pending.empty()) on_line(pending);
    r.exit_code = reap(pid, stop);
    return r;
}

}  // namespace coffer::retrieval
