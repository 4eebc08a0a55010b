#include "spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

extern char** environ;

namespace coffer::mcp_server {

namespace {

bool executable_file(const std::string& p, std::string& why) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
        why = "not found";
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        why = "not a regular file";
        return false;
    }
    if (::access(p.c_str(), X_OK) != 0) {
        why = "not executable";
        return false;
    }
    return true;
}

void close_pair(int p[2]) {
    if (p[0] >= 0) ::close(p[0]);
    if (p[1] >= 0) ::close(p[1]);
}

}  // namespace

Resolved resolve_command(const std::string& command, const std::string& path_var, const std::string& cwd) {
    Resolved r;
    std::string why;
    if (command.find('/') != std::string::npos) {
        std::string p = command;
        if (p.front() != '/' && !cwd.empty()) p = cwd + "/" + p;
        if (executable_file(p, why)) r.path = command.front() == '/' || cwd.empty() ? command : p;
        else r.error = "runner not installed: " + command + " (" + why + ")";
        return r;
    }
    std::string dirs = path_var.empty() ? std::string("/usr/local/bin:/usr/bin:/bin") : path_var;
    std::size_t start = 0;
    bool seen_not_exec = false;
    while (start <= dirs.size()) {
        auto end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(start, end - start);
        if (dir.empty()) dir = ".";
        std::string p = dir + "/" + command;
        if (executable_file(p, why)) {
            r.path = p;
            return r;
        }
        if (why == "not executable") seen_not_exec = true;
        start = end + 1;
    }
    r.error = "runner not installed: " + command + (seen_not_exec ? " (found but not executable)" : "");
    return r;
}

std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::map<std::string, std::string> all;
    for (char** e = environ; e && *e; ++e) {
        std::string_view s(*e);
        auto eq = s.find('=');
        if (eq == std::string_view::npos) continue;
        all[std::string(s.substr(0, eq))] = std::string(s.substr(eq + 1));
    }
    for (auto& [k, v] : overrides) all[k] = v;
    std::vector<std::string> out;
    out.reserve(all.size());
    for (auto& [k, v] : all) out.push_back(k + "=" + v);
    return out;
}

std::string env_value(const std::vector<std::string>& env, std::string_view name) {
    for (auto& e : env)
        if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
            return e.substr(name.size() + 1);
    return {};
}

std::string expand_home(const std::string& path) {
    if (path == "~" || path.rfind("~/", 0) == 0) {
        const char* home = ::getenv("HOME");
        return std::string(home ? home : "") + path.substr(1);
    }
    return path;
}

std::optional<Child> spawn_child(const std::string& path, const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env, const std::string& cwd, std::string& error) {
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        error = std::string("cannot create pipes: ") + std::strerror(errno);
        close_pair(in), close_pair(out), close_pair(err);
        return std::nullopt;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
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
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        if (rc == ENOENT && !cwd.empty()) error = "cannot start " + path + ": working directory " + cwd + " or the program does not exist";
        else error = "cannot start " + path + ": " + std::strerror(rc);
        return std::nullopt;
    }
    Child c;
    c.pid = pid;
    c.in = in[1];
    c.out = out[0];
    c.err = err[0];
    return c;
}

}  // namespace coffer::mcp_server
