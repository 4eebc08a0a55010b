// Starting a child the way Coffer starts every child it supervises: the program looked up like
// execvp would (with a clear reason when it is missing), posix_spawn with pipes, the child the
// leader of its own process group (so one signal reaches its whole tree), default signal
// dispositions, an empty signal mask and no inherited descriptors. Header-only, Linux; used by
// the agent drivers (coffer/agent_runner.hpp) and the mcp_server plugin's stdio upstreams.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

extern char** environ;

namespace coffer::child {

struct Resolved {
    std::string path;   // empty when not found
    std::string error;  // why not, e.g. "claude not found on PATH"
    std::string why;    // the reason alone: "not found", "not executable", "found but not executable", …
};

inline bool executable_file(const std::string& p, std::string& why) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return why = "not found", false;
    if (!S_ISREG(st.st_mode)) return why = "not a regular file", false;
    if (::access(p.c_str(), X_OK) != 0) return why = "not executable", false;
    return true;
}

// A name with '/' is used as is (a relative one checked against `cwd` when given, where the child
// will run); anything else is searched on `path_var` (":"-separated; an empty entry is ".").
inline Resolved resolve(const std::string& command, const std::string& path_var, const std::string& cwd = {}) {
    Resolved r;
    std::string why;
    if (command.empty()) return r.error = r.why = "no command", r;
    if (command.find('/') != std::string::npos) {
        std::string p = command.front() != '/' && !cwd.empty() ? cwd + "/" + command : command;
        if (executable_file(p, why)) r.path = p;
        else r.error = command + ": " + why, r.why = why;
        return r;
    }
    std::string dirs = path_var.empty() ? std::string("/usr/local/bin:/usr/bin:/bin") : path_var;
    bool seen_not_exec = false;
    std::size_t start = 0;
    while (start <= dirs.size()) {
        auto end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(start, end - start);
        std::string p = (dir.empty() ? std::string(".") : dir) + "/" + command;
        if (executable_file(p, why)) return r.path = p, r;
        if (why == "not executable") seen_not_exec = true;
        start = end + 1;
    }
    if (seen_not_exec) r.why = "found but not executable";
    r.error = command + " not found on PATH" + (seen_not_exec ? " (found but not executable)" : "");
    return r;
}

// This process's environment with `overrides` applied, as NAME=value strings.
inline std::vector<std::string> environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::map<std::string, std::string> all;
    for (char** e = environ; e && *e; ++e) {
        std::string_view s(*e);
        auto eq = s.find('=');
        if (eq != std::string_view::npos) all[std::string(s.substr(0, eq))] = std::string(s.substr(eq + 1));
    }
    for (auto& [k, v] : overrides) all[k] = v;
    std::vector<std::string> out;
    for (auto& [k, v] : all) out.push_back(k + "=" + v);
    return out;
}

inline std::string env_value(const std::vector<std::string>& env, std::string_view name) {
    for (auto& e : env)
        if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
            return e.substr(name.size() + 1);
    return {};
}

struct Child {
    pid_t pid = -1;          // also the process group id
    int out = -1, err = -1;  // our ends of its stdout and stderr (CLOEXEC, blocking)
    int in = -1;             // our end of its stdin when asked for (else the child reads /dev/null)
};

// Spawns `path` with `argv` (argv[0] included), `env` and `cwd` ("" = ours); stdin is /dev/null,
// or a pipe (Child::in) with `stdin_pipe`.
inline std::optional<Child> spawn(const std::string& path, const std::vector<std::string>& argv,
                                  const std::vector<std::string>& env, const std::string& cwd, std::string& error,
                                  bool stdin_pipe = false) {
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    auto close_all = [&] {
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
            if (fd >= 0) ::close(fd);
    };
    if ((stdin_pipe && ::pipe2(in, O_CLOEXEC) != 0) || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        error = std::string("cannot create pipes: ") + std::strerror(errno);
        close_all();
        return std::nullopt;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    if (stdin_pipe) posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
    e.push_back(nullptr);
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, path.c_str(), &fa, &attr, a.data(), e.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    for (int* fd : {&in[0], &out[1], &err[1]}) {  // the child's ends
        if (*fd >= 0) ::close(*fd);
        *fd = -1;
    }
    if (rc != 0) {
        close_all();
        if (rc == ENOENT && !cwd.empty()) error = "cannot start " + path + ": the working directory " + cwd + " does not exist";
        else error = "cannot start " + path + ": " + std::strerror(rc);
        return std::nullopt;
    }
    return Child{pid, out[0], err[0], in[1]};
}

}  // namespace coffer::child
