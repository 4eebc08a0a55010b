#include "client/locator.hpp"

#include "client/codes.hpp"
#include "client/http.hpp"
#include "client/process.hpp"
#include "client/spawn.hpp"
#include "client/url.hpp"
#include "vault/file_lock.hpp"
#include "vault/layout.hpp"

#include <coffer/lines.hpp>

#include <boost/json/parse.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

namespace coffer::client {
namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

core::Result<HttpResponse> get_status(const DaemonInfo& info) {
    HttpRequest req;
    req.port = info.port;
    req.target = api_path({"daemon", "status"});
    req.headers = {{"X-Coffer-Token", info.token}, {"X-Coffer-Actor", "cli"},
                   {"Accept", "application/json"}};
    return http_send(req, HttpTimeouts{2000ms, 5000ms});
}

core::Error unreachable(std::string message) {
    return core::Error::make(code::daemon_unreachable, std::move(message));
}

std::string log_hint(const fs::path& vault) {
    return "see " + (vault / vault::kLogs / vault::kDaemonLog).string();
}

// The last line a daemon that stopped wrote to its stderr file (at most 500 bytes), or "".
std::string last_words(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return last_line(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), 500);
}

}  // namespace

Probe probe_daemon(const fs::path& vault) {
    Probe p;
    auto info = read_daemon_info(vault);
    if (!info) {
        p.state = Probe::State::absent;
        p.reason = info.error().message;
        return p;
    }
    p.info = info.value();
    if (!process_alive(info->pid)) {
        p.state = Probe::State::absent;
        p.reason = "daemon.json names pid " + std::to_string(info->pid) + ", which is not running";
        return p;
    }
    if (auto name = process_name(info->pid); !name.empty() && name.find("coffer") == std::string::npos) {
        // A daemon that died without cleaning up, its pid since reused by another program.
        p.state = Probe::State::absent;
        p.reason = "daemon.json names pid " + std::to_string(info->pid) + ", which is now '" + name +
                   "', not a coffer-daemon";
        return p;
    }
    auto res = get_status(*p.info);
    if (res && res->status == 401) {
        // The token may have been rotated between our read and the call: read again, once.
        if (auto again = read_daemon_info(vault); again && again->token != p.info->token) {
            p.info = again.value();
            res = get_status(*p.info);
        }
    }
    if (!res) {
        p.state = Probe::State::unresponsive;
        p.reason = res.error().message;
        return p;
    }
    if (res->status != 200) {
        p.state = Probe::State::unresponsive;
        p.reason = "GET /api/v1/daemon/status on port " + std::to_string(p.info->port) +
                   " answered HTTP " + std::to_string(res->status);
        return p;
    }
    boost::system::error_code ec;
    p.status = json::parse(res->body, ec);
    if (ec) p.status = json::object();
    p.state = Probe::State::live;
    return p;
}

core::Result<Located> ensure_daemon(const fs::path& vault, const EnsureOptions& opt) {
    auto note = [&](const std::string& m) {
        if (opt.note) opt.note(m);
    };
    auto live = [](Probe& p) { return Located{LiveDaemon{std::move(*p.info), std::move(p.status)}, false}; };

    Probe first = probe_daemon(vault);
    if (first.state == Probe::State::live) return live(first);
    if (!opt.allow_spawn)
        return unreachable("coffer-daemon is not running for vault " + vault.string() + " (" +
                           first.reason + ")");

    if (auto made = ensure_vault_dir(vault); !made) return unreachable(made.error().message);
    note("no live daemon (" + first.reason + "); taking " + (vault / vault::kSpawnLock).string());
    auto lock = vault::FileLock::take_waiting(vault / vault::kSpawnLock, opt.lock_timeout);
    if (!lock) return unreachable("cannot start coffer-daemon: " + lock.error().message);

    // Someone may have started it while we waited for the lock.
    Probe second = probe_daemon(vault);
    if (second.state == Probe::State::live) return live(second);

    auto exe = find_daemon_executable();
    if (!exe) {
        if (const char* forced = std::getenv("COFFER_DAEMON_BIN"); forced && *forced)
            return unreachable(std::string("COFFER_DAEMON_BIN=") + forced +
                               " is not an executable file");
        fs::path dir = self_exe_dir();
        return unreachable("cannot find the coffer-daemon executable " +
                           (dir.empty() ? std::string() : "next to " + dir.string() + " or ") +
                           "on PATH; install it or set COFFER_DAEMON_BIN");
    }
    note("starting " + exe->string() + " --home " + vault.string());
    const fs::path stderr_file = vault / vault::kLogs / vault::kDaemonStderr;
    // The vault exists (ensure_vault_dir above); logs/ is made private as the daemon makes it.
    // No folder: the daemon's words go nowhere, which is not a reason to refuse to start it.
    (void)::mkdir(stderr_file.parent_path().c_str(), 0700);
    auto pid = spawn_detached(*exe, {"--home", vault.string()}, stderr_file);
    if (!pid) return unreachable(pid.error().message);

    const auto start = std::chrono::steady_clock::now();
    auto deadline = start + opt.ready_timeout;
    bool exited = false;
    Probe last;
    while (true) {
        last = probe_daemon(vault);
        if (last.state == Probe::State::live) {
            note("coffer-daemon is ready (pid " + std::to_string(last.info->pid) + ", port " +
                 std::to_string(last.info->port) + ")");
            Located located = live(last);
            located.spawned = located.daemon.info.pid == *pid;
            return located;
        }
        auto now = std::chrono::steady_clock::now();
        if (!exited && !process_alive(*pid)) {
            // Our daemon is gone. If another one holds daemon.lock it may still become ready
            // soon; give it a short grace period rather than the full timeout.
            exited = true;
            deadline = std::min(deadline, now + 2s);
        }
        if (now >= deadline) break;
        std::this_thread::sleep_for(50ms);
    }
    if (exited) {
        if (auto said = last_words(stderr_file); !said.empty())
            return unreachable("coffer-daemon (pid " + std::to_string(*pid) + ") exited during startup: " + said);
        return unreachable("coffer-daemon (pid " + std::to_string(*pid) +
                           ") exited during startup; " + log_hint(vault) + ", or run `" + exe->string() +
                           " --home " + vault.string() + "` to see its reason");
    }
    return unreachable("coffer-daemon (pid " + std::to_string(*pid) + ") did not become ready within " +
                       std::to_string(opt.ready_timeout.count() / 1000) + " s (" + last.reason +
                       "); " + log_hint(vault));
}

}  // namespace coffer::client
