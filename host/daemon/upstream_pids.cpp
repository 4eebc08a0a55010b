#include "daemon/upstream_pids.hpp"

#include "core/clock.hpp"
#include "core/files.hpp"
#include "core/log.hpp"

#include <coffer/process.hpp>

#include <boost/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace coffer::daemon {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// argv of a live process ("" when gone or unreadable), NULs turned into spaces.
std::string cmdline_of(std::int64_t pid) {
    auto raw = slurp("/proc/" + std::to_string(pid) + "/cmdline");
    while (!raw.empty() && raw.back() == '\0') raw.pop_back();
    for (auto& c : raw)
        if (c == '\0') c = ' ';
    return raw;
}

// Field 22 of /proc/<pid>/stat: start time in clock ticks since boot (-1 when unreadable).
long long start_time_of(std::int64_t pid) {
    auto stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    auto close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22; ++i)
        if (!(rest >> field)) return -1;
    try {
        return std::stoll(field);
    } catch (...) {
        return -1;
    }
}

// Never pid 1: a record naming it is not an upstream we started.
bool alive(pid_t pid) { return pid > 1 && coffer::process_alive(pid); }

// True when a process of group `pgid` still runs (zombies do not count: a PID 1 that never reaps
// would otherwise keep a killed group "alive").
bool group_running(pid_t pgid) {
    if (pgid <= 1 || (::kill(-pgid, 0) != 0 && errno != EPERM)) return false;
    std::error_code ec;
    for (auto& e : fs::directory_iterator("/proc", ec)) {
        auto name = e.path().filename().string();
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
        auto stat = slurp(e.path() / "stat");
        auto close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(stat.substr(close + 2));
        std::string state, ppid, pgrp;
        if (!(rest >> state >> ppid >> pgrp)) continue;
        if (state != "Z" && pgrp == std::to_string(pgid)) return true;
    }
    return false;
}

bool numeric(const std::string& s) {
    return !s.empty() && s.size() < 12 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

bool UpstreamPids::record(const std::string& plugin, std::int64_t pid, const std::string& description) const {
    pid_t pgid = ::getpgid(static_cast<pid_t>(pid));
    if (pgid != static_cast<pid_t>(pid))
        core::log::warn("upstream child does not lead its own process group",
                        {{"plugin", plugin}, {"pid", pid}, {"pgid", static_cast<std::int64_t>(pgid)}});
    // Reported right after fork, the child may not have exec'd yet: give it a moment so the
    // recorded command line is the child's own (the start time identifies it either way).
    auto own = cmdline_of(::getpid());
    auto cmd = cmdline_of(pid);
    for (int i = 0; i < 50 && (cmd == own || cmd.empty()); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        cmd = cmdline_of(pid);
    }
    json::object doc{{"pid", pid},
                     {"pgid", static_cast<std::int64_t>(pgid)},
                     {"plugin", plugin},
                     {"description", description},
                     {"cmdline", cmd},
                     {"start_time", start_time_of(pid)},
                     {"daemon_pid", static_cast<std::int64_t>(::getpid())},
                     {"recorded_at", core::now_iso()}};
    auto r = core::write_file_atomic(dir_ / std::to_string(pid), json::serialize(doc), 0600);
    if (!r) core::log::error("cannot record upstream child", {{"pid", pid}, {"error", r.error().message}});
    return r.ok();
}

void UpstreamPids::forget(std::int64_t pid) const {
    std::error_code ec;
    fs::remove(dir_ / std::to_string(pid), ec);
}

UpstreamPids::Swept UpstreamPids::sweep(int grace_ms) const {
    Swept out;
    std::error_code ec;
    if (!fs::is_directory(dir_, ec)) return out;
    std::vector<pid_t> groups;
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(dir_, ec)) {
        auto name = e.path().filename().string();
        files.push_back(e.path());
        // Only our own records are read: never a link (it is removed like any other entry).
        std::error_code sec;
        if (!numeric(name) || !fs::is_regular_file(e.symlink_status(sec))) continue;
        boost::system::error_code jec;
        auto v = json::parse(slurp(e.path()), jec);
        auto* o = v.if_object();
        auto num = [&](const char* k) -> long long {
            auto* x = o ? o->if_contains(k) : nullptr;
            return x && x->is_int64() ? x->as_int64() : -1;
        };
        auto pid = static_cast<pid_t>(std::stoll(name));
        long long pgid = num("pgid") > 1 ? num("pgid") : pid;
        if (pid <= 1 || pgid <= 1) continue;
        bool ours = false;
        if (alive(pid)) {
            long long started = num("start_time");
            auto* cmd = o ? o->if_contains("cmdline") : nullptr;
            bool same_start = started >= 0 && start_time_of(pid) == started;
            bool same_cmd = cmd && cmd->is_string() && !cmd->as_string().empty() && cmdline_of(pid) == cmd->as_string();
            ours = same_start || same_cmd;
        } else {
            // The leader is gone but its group lives on (its children): a group without a leader
            // cannot be a newer process that reused the id.
            ours = group_running(static_cast<pid_t>(pgid)) && !alive(static_cast<pid_t>(pgid));
        }
        if (!ours) continue;
        core::log::warn("killing orphaned upstream process group",
                        {{"pid", static_cast<std::int64_t>(pid)}, {"pgid", pgid},
                         {"description", o && o->contains("description") ? o->at("description") : json::value("")}});
        ::kill(-static_cast<pid_t>(pgid), SIGTERM);
        groups.push_back(static_cast<pid_t>(pgid));
        ++out.killed;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
    for (auto g : groups) {
        while (group_running(g) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (group_running(g)) ::kill(-g, SIGKILL);
    }
    for (auto& f : files) {
        if (fs::remove(f, ec)) ++out.removed;
    }
    return out;
}

}  // namespace coffer::daemon
