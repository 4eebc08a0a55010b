#include "client/spawn.hpp"

#include <cerrno>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace coffer::client {

namespace {

// Messages from the children to the parent over a close-on-exec pipe.
struct Note {
    char kind;  // 'P': pid of the daemon; 'E': errno of a failed step
    int value;
};

void send_note(int fd, char kind, int value) {
    Note n{kind, value};
    ssize_t ignored = ::write(fd, &n, sizeof n);
    (void)ignored;
}

void close_fds_from(int first, int keep) {
    // close_range(2) when available, else a bounded loop.
#ifdef SYS_close_range
    if (keep > first) ::syscall(SYS_close_range, first, keep - 1, 0);
    if (::syscall(SYS_close_range, keep + 1, ~0U, 0) == 0) return;
#endif
    long max = ::sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = first; fd < max; ++fd)
        if (fd != keep) ::close(fd);
}

[[noreturn]] void become_daemon(int note_fd, char* const argv[], const char* stderr_file) {
    // Runs in the grandchild: only async-signal-safe calls until exec.
    int devnull = ::open("/dev/null", O_RDWR);
    if (devnull < 0) {
        send_note(note_fd, 'E', errno);
        ::_exit(127);
    }
    int err = *stderr_file ? ::open(stderr_file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600) : -1;
    ::dup2(devnull, STDIN_FILENO);
    ::dup2(devnull, STDOUT_FILENO);
    ::dup2(err >= 0 ? err : devnull, STDERR_FILENO);
    if (err > STDERR_FILENO) ::close(err);
    if (devnull > STDERR_FILENO) ::close(devnull);
    close_fds_from(STDERR_FILENO + 1, note_fd);
    if (::chdir("/") != 0) { /* not fatal */ }

    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD}) std::signal(sig, SIG_DFL);

    ::execv(argv[0], argv);
    send_note(note_fd, 'E', errno);
    ::_exit(127);
}

}  // namespace

core::Result<int> spawn_detached(const std::filesystem::path& exe, const std::vector<std::string>& args,
                                 const std::filesystem::path& stderr_file) {
    // Everything that allocates happens before fork.
    std::string exe_str = exe.string();
    std::string err_str = stderr_file.string();
    std::vector<char*> argv;
    argv.push_back(exe_str.data());
    std::vector<std::string> copies = args;
    for (auto& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);

    int pipefd[2];
    if (::pipe2(pipefd, O_CLOEXEC) != 0)
        return core::Error::make(core::code::internal, std::string("pipe: ") + std::strerror(errno));

    pid_t child = ::fork();
    if (child < 0) {
        int err = errno;
        ::close(pipefd[0]);
        ::close(pipefd[1]);
        return core::Error::make(core::code::internal, std::string("fork: ") + std::strerror(err));
    }
    if (child == 0) {
        ::close(pipefd[0]);
        ::setsid(); // leave our session and process group: no terminal, no job-control signals
        pid_t grandchild = ::fork();
        if (grandchild < 0) {
            send_note(pipefd[1], 'E', errno);
            ::_exit(1);
        }
        if (grandchild > 0) {
            send_note(pipefd[1], 'P', grandchild);
            ::_exit(0);
        }
        become_daemon(pipefd[1], argv.data(), err_str.c_str());
    }

    ::close(pipefd[1]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }

    // Read until EOF: the pipe closes when the intermediate child exited and the daemon exec'ed.
    int daemon_pid = 0, failure = 0;
    Note note{};
    while (true) {
        ssize_t n = ::read(pipefd[0], &note, sizeof note);
        if (n < 0 && errno == EINTR) continue;
        if (n != static_cast<ssize_t>(sizeof note)) break;
        if (note.kind == 'P') daemon_pid = note.value;
        if (note.kind == 'E') failure = note.value;
    }
    ::close(pipefd[0]);

    if (failure != 0)
        return core::Error::make(core::code::internal,
                                 "cannot start " + exe_str + ": " + std::strerror(failure));
    if (daemon_pid <= 0)
        return core::Error::make(core::code::internal, "cannot start " + exe_str);
    return daemon_pid;
}

bool no_spawn_from_env() {
    const char* v = std::getenv("COFFER_NO_SPAWN");
    if (!v || !*v) return false;
    std::string_view s(v);
    return s != "0" && s != "false" && s != "no";
}

}  // namespace coffer::client
