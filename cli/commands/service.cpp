// coffer daemon install-service | uninstall-service — the daemon as a `systemd --user` service, so
// it starts with the user's session and survives a reboot. install-service writes
// $XDG_CONFIG_HOME/systemd/user/coffer-daemon.service (default ~/.config/…) running this
// installation's coffer-daemon for this vault, then `systemctl --user daemon-reload` and
// `enable --now` (unless --no-enable). The unit stops the daemon with SIGTERM, which it answers
// with a clean shutdown, and does not restart it when another daemon holds the vault (exit 2).
// Local only: no REST call.
#include "app/command.hpp"
#include "app/context.hpp"

#include "client/locator.hpp"
#include "client/process.hpp"
#include "core/error.hpp"

#include <coffer/atomic_file.hpp>
#include <coffer/child_process.hpp>

#include <boost/json/object.hpp>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <ostream>

namespace coffer::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUnitName = "coffer-daemon.service";

fs::path unit_dir() {
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x == '/') return fs::path(x) / "systemd" / "user";
    const char* home = std::getenv("HOME");
    return fs::path(home && *home ? home : "/") / ".config" / "systemd" / "user";
}

// One argument of ExecStart=, quoted for systemd: "…" with \ and " escaped, % and $ doubled.
std::string unit_arg(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '%') out += '%';
        if (c == '$') out += '$';
        out += c;
    }
    return out + "\"";
}

std::string unit_text(const fs::path& daemon, const fs::path& vault) {
    return "# Written by `coffer daemon install-service`; removed by `coffer daemon uninstall-service`.\n"
           "[Unit]\n"
           "Description=Coffer daemon for the vault " + vault.string() + "\n"
           "\n"
           "[Service]\n"
           "Type=simple\n"
           "ExecStart=" + unit_arg(daemon.string()) + " --home " + unit_arg(vault.string()) + "\n"
           "# SIGTERM is the daemon's clean shutdown (sessions closed, upstreams stopped, daemon.json removed).\n"
           "KillSignal=SIGTERM\n"
           "KillMode=mixed\n"
           "TimeoutStopSec=30\n"
           "Restart=on-failure\n"
           "RestartSec=2\n"
           "# Exit 2: another daemon holds this vault's lock; restarting would not help.\n"
           "RestartPreventExitStatus=2\n"
           "\n"
           "[Install]\n"
           "WantedBy=default.target\n";
}

struct Ran {
    int status = -1;  // exit code; -1 when it could not run
    std::string output;
};

// Runs `systemctl --user ARGS…`, collecting its output (both streams).
Ran systemctl(const std::vector<std::string>& args) {
    const char* path = std::getenv("PATH");
    auto found = child::resolve("systemctl", path ? path : "/usr/bin:/bin");
    if (found.path.empty()) return {-1, "systemctl was not found on PATH"};
    std::vector<std::string> argv{"systemctl", "--user"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string error;
    auto c = child::spawn(found.path, argv, child::environment({}), "", error);
    if (!c) return {-1, error};
    Ran r;
    pollfd fds[2] = {{c->out, POLLIN, 0}, {c->err, POLLIN, 0}};
    int open = 2;
    while (open > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (auto& f : fds) {
            if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[1024];
            auto n = ::read(f.fd, buf, sizeof buf);
            if (n > 0) r.output.append(buf, static_cast<std::size_t>(n));
            else if (n == 0 || errno != EINTR) ::close(f.fd), f.fd = -1, --open;
        }
    }
    int st = 0;
    while (::waitpid(c->pid, &st, 0) < 0 && errno == EINTR) {}
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    while (!r.output.empty() && (r.output.back() == '\n' || r.output.back() == ' ')) r.output.pop_back();
    return r;
}

int install(Context& ctx, const Invocation& inv) {
    auto daemon = client::find_daemon_executable();
    if (!daemon)
        return ctx.fail(core::Error::make(core::code::not_found, "cannot find the coffer-daemon executable (next to coffer or on PATH)"));
    fs::path exe = fs::absolute(*daemon).lexically_normal();
    fs::path vault = fs::absolute(ctx.vault()).lexically_normal();
    fs::path dir = unit_dir(), file = dir / kUnitName;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return ctx.fail(core::Error::make(core::code::internal, "cannot create " + dir.string() + ": " + ec.message()));
    if (auto err = coffer::write_file_atomic(file, unit_text(exe, vault), 0644); !err.empty())
        return ctx.fail(core::Error::make(core::code::internal, "cannot write " + file.string() + ": " + err));
    bool enable = !inv.flag("no-enable");
    json::object doc{{"unit", file.string()}, {"daemon", exe.string()}, {"vault", vault.string()}, {"enabled", false}};
    if (enable) {
        auto reload = systemctl({"daemon-reload"});
        auto on = reload.status == 0 ? systemctl({"enable", "--now", kUnitName}) : reload;
        if (on.status != 0) {
            doc["error"] = on.output;
            if (ctx.json()) ctx.print_json(doc);
            ctx.err() << "wrote " << file.string() << ", but could not enable it: " << on.output << '\n'
                      << "hint: in a login session run `systemctl --user daemon-reload && systemctl --user enable --now "
                      << kUnitName << "`\n";
            return exit_code::failed;
        }
        doc["enabled"] = true;
        // A daemon started before (by the CLI or the shim) holds the vault; the unit's would exit 2.
        if (auto p = client::probe_daemon(ctx.vault()); p.state == client::Probe::State::live && p.info) {
            doc["running_outside_systemd"] = p.info->pid;
            ctx.err() << "note: coffer-daemon (pid " << p.info->pid << ") already serves this vault outside systemd; "
                      << "run `coffer daemon stop && systemctl --user restart " << kUnitName << "` to hand it over\n";
        }
    }
    if (ctx.json()) ctx.print_json(doc);
    else {
        ctx.out() << "wrote " << file.string() << '\n';
        if (enable) ctx.out() << "enabled and started " << kUnitName << " (systemctl --user status " << kUnitName << ")\n";
        else ctx.out() << "enable it with: systemctl --user daemon-reload && systemctl --user enable --now " << kUnitName << '\n';
    }
    return exit_code::ok;
}

int uninstall(Context& ctx, const Invocation& inv) {
    fs::path file = unit_dir() / kUnitName;
    std::error_code ec;
    bool existed = fs::exists(fs::symlink_status(file, ec));
    json::object doc{{"unit", file.string()}, {"removed", existed}};
    if (existed && !inv.flag("no-enable")) {
        // Stops the daemon cleanly (SIGTERM) and removes the wants/ link; failure is reported, not fatal.
        auto off = systemctl({"disable", "--now", kUnitName});
        if (off.status != 0) doc["systemctl"] = off.output;
    }
    if (existed && !fs::remove(file, ec) && ec)
        return ctx.fail(core::Error::make(core::code::internal, "cannot remove " + file.string() + ": " + ec.message()));
    if (existed && !inv.flag("no-enable")) (void)systemctl({"daemon-reload"});  // best effort: the unit file is gone either way
    if (ctx.json()) ctx.print_json(doc);
    else if (existed) ctx.out() << "removed " << file.string() << '\n';
    else ctx.out() << "no " << kUnitName << " installed (" << file.string() << ")\n";
    if (auto* s = doc.if_contains("systemctl")) ctx.err() << "note: systemctl: " << s->as_string() << '\n';
    return exit_code::ok;
}

}  // namespace

void register_service_commands(Registry& r) {
    r.add({"daemon", "install-service", "[--no-enable]",
           "run the daemon as a systemd --user service (coffer-daemon.service): write the unit, enable and start it",
           {{"no-enable", "", "only write the unit file"}}, 0, 0, install});
    r.add({"daemon", "uninstall-service", "[--no-enable]",
           "stop and disable the systemd --user service and remove its unit file",
           {{"no-enable", "", "only remove the unit file (no systemctl)"}}, 0, 0, uninstall});
}

}  // namespace coffer::cli
