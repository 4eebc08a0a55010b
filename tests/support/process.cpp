#include "process.hpp"

#include <coffer/process.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <cstring>
#include <thread>

extern char** environ;

namespace coffer::test {

namespace {
std::vector<std::string> merged_env(const std::map<std::string, std::string>& env) {
    std::map<std::string, std::string> all;
    for (char** e = environ; *e; ++e) {
        std::string s = *e;
        auto eq = s.find('=');
        if (eq != std::string::npos) all[s.substr(0, eq)] = s.substr(eq + 1);
    }
    for (auto& [k, v] : env) {
        if (v.empty()) all.erase(k);
        else all[k] = v;
    }
    std::vector<std::string> out;
    for (auto& [k, v] : all) out.push_back(k + "=" + v);
    return out;
}

std::vector<char*> cptrs(std::vector<std::string>& v) {
    std::vector<char*> out;
    for (auto& s : v) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// A child started with posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK), no copy of this
// process's page tables, which a fork() of a big test process pays on every start), its standard
// descriptors set up by the file actions given.
class Spawn {
public:
    Spawn(std::vector<std::string> argv, const std::map<std::string, std::string>& env)
        : argv_(std::move(argv)), env_(merged_env(env)), a_(cptrs(argv_)), e_(cptrs(env_)) {
        posix_spawn_file_actions_init(&actions_);
    }
    ~Spawn() { posix_spawn_file_actions_destroy(&actions_); }
    Spawn(const Spawn&) = delete;
    Spawn& operator=(const Spawn&) = delete;

    Spawn& dup(int from, int to) {
        posix_spawn_file_actions_adddup2(&actions_, from, to);
        return *this;
    }
    Spawn& open(int to, const char* path, int flags) {
        posix_spawn_file_actions_addopen(&actions_, to, path, flags, 0600);
        return *this;
    }
    // The child's pid, or -1 when it could not be started (a missing program, a file that would
    // not open).
    pid_t start() {
        pid_t pid = -1;
        return posix_spawn(&pid, a_[0], &actions_, nullptr, a_.data(), e_.data()) == 0 ? pid : -1;
    }

private:
    std::vector<std::string> argv_, env_;
    std::vector<char*> a_, e_;
    posix_spawn_file_actions_t actions_;
};
}  // namespace

RunResult run(const std::vector<std::string>& argv_in, const std::map<std::string, std::string>& env,
              std::chrono::milliseconds timeout, const std::string& stdin_data) {
    RunResult r;
    int out[2], err[2], in[2];
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(in, O_CLOEXEC)) return r;
    pid_t pid = Spawn(argv_in, env).dup(in[0], 0).dup(out[1], 1).dup(err[1], 2).start();
    close(out[1]);
    close(err[1]);
    close(in[0]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        close(err[0]);
        return r;
    }
    if (!stdin_data.empty()) {
        auto n = write(in[1], stdin_data.data(), stdin_data.size());
        (void)n;
    }
    close(in[1]);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_count = 2;
    char buf[65536];
    while (open_count > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            kill(pid, SIGKILL);
            break;
        }
        int n = poll(fds, 2, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            auto got = read(fds[i].fd, buf, sizeof buf);
            if (got <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_count;
            } else {
                (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(got));
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) close(f.fd);
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

pid_t spawn(const std::vector<std::string>& argv_in, const std::map<std::string, std::string>& env,
            const std::filesystem::path& log_file) {
    return Spawn(argv_in, env)
        .open(0, "/dev/null", O_RDONLY)
        .open(1, log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND)
        .dup(1, 2)
        .start();
}

PipedChild spawn_piped(const std::vector<std::string>& argv_in, const std::map<std::string, std::string>& env,
                       const std::filesystem::path& err_file) {
    PipedChild c;
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return c;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return c;
    }
    pid_t pid = Spawn(argv_in, env)
                    .dup(in[0], 0)
                    .dup(out[1], 1)
                    .open(2, err_file.c_str(), O_WRONLY | O_CREAT | O_APPEND)
                    .start();
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        return c;
    }
    c.pid = pid;
    c.in = in[1];
    c.out = out[0];
    return c;
}

int wait_pid(pid_t pid, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        int status = 0;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (r < 0) return -1;
        if (std::chrono::steady_clock::now() > deadline) return -2;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

bool pid_alive(pid_t pid) { return coffer::process_alive(pid); }

std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "";
    for (std::size_t start = 0; start <= p.size();) {
        auto end = p.find(':', start);
        if (end == std::string::npos) end = p.size();
        auto cand = std::filesystem::path(p.substr(start, end - start)) / name;
        if (end > start && ::access(cand.c_str(), X_OK) == 0) return cand.string();
        start = end + 1;
    }
    return {};
}

std::filesystem::path bin_dir() { return COFFER_TEST_BIN_DIR; }
std::filesystem::path test_plugin_dir() { return COFFER_TEST_PLUGINS; }

}  // namespace coffer::test
