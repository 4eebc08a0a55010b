// Is a process alive: the one check of the host (the upstream-pids sweep), bundled plugins (stale
// staging folders of the skill library), the CLI and shim (is the daemon in daemon.json running)
// and the tests. Header-only, Linux (/proc). See ADR 0027.
//
// Alive means: the id names a process — kill(pid, 0) succeeds, or fails with EPERM (it exists
// but belongs to another user) — and that process is not a zombie (exited, not yet reaped: it
// runs nothing and holds no lock, so for every caller it is gone). Ids ≤ 0 and ids beyond pid_t
// are never alive (kill would address a process group or every process).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cerrno>
#include <fstream>
#include <limits>
#include <string>

namespace coffer {

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z' for a zombie, …); 0 when unreadable
// (no such process, or no /proc).
inline char process_state(long long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return 0;  // getline: a process reaped meanwhile reads as empty
    auto close = line.rfind(')');           // the command name may hold spaces and parentheses
    if (close == std::string::npos || close + 2 >= line.size()) return 0;
    return line[close + 2];
}

inline bool process_alive(long long pid) {
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) return false;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
    char state = process_state(pid);
    return state != 'Z' && state != 'X';
}

}  // namespace coffer
