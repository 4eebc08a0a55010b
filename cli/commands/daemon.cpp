// coffer daemon start|stop|status|rotate-token
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/client.hpp"
#include "client/locator.hpp"
#include "client/process.hpp"
#include "client/url.hpp"
#include "vault/layout.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <ostream>
#include <thread>

namespace coffer::cli {
namespace json = boost::json;
using client::Probe;

namespace {

json::value status_document(const client::LiveDaemon& d) {
    json::object o = d.status.is_object() ? d.status.get_object() : json::object();
    // Fill what an older daemon might omit from what it published in daemon.json.
    if (!o.contains("status")) o["status"] = "ready";
    if (!o.contains("port")) o["port"] = d.info.port;
    if (!o.contains("pid")) o["pid"] = d.info.pid;
    if (!o.contains("started_at")) o["started_at"] = d.info.started_at;
    if (!o.contains("version")) o["version"] = d.info.version;
    return o;
}

void print_status_human(std::ostream& out, const json::value& s) {
    out << "coffer-daemon is running\n"
        << "  pid:      " << text_field(s, "pid") << '\n'
        << "  port:     " << text_field(s, "port") << '\n'
        << "  version:  " << text_field(s, "version") << '\n'
        << "  started:  " << text_field(s, "started_at") << '\n';
    if (auto vault = text_field(s, "vault"); !vault.empty()) out << "  vault:    " << vault << '\n';
}

int status(Context& ctx, const Invocation&) {
    Probe p = client::probe_daemon(ctx.vault());
    if (p.state == Probe::State::live) {
        json::value doc = status_document(client::LiveDaemon{*p.info, p.status});
        if (ctx.json())
            ctx.print_json(doc);
        else
            print_status_human(ctx.out(), doc);
        return exit_code::ok;
    }
    if (p.state == Probe::State::absent) {
        if (ctx.json()) ctx.print_json(json::object{{"status", "stopped"}});
        ctx.err() << "daemon not running";
        if (ctx.verbose()) ctx.err() << " (" << p.reason << ")";
        ctx.err() << " — start it with `coffer daemon start`\n";
        return exit_code::unreachable;
    }
    if (ctx.json())
        ctx.print_json(json::object{{"status", "unreachable"}, {"pid", p.info->pid}, {"port", p.info->port}});
    ctx.err() << "coffer-daemon (pid " << p.info->pid << ") does not answer: " << p.reason << '\n'
              << "hint: see " << (ctx.vault() / vault::kLogs / vault::kDaemonLog).string()
              << "; if it is hung, `kill " << p.info->pid << "` and run `coffer daemon start`\n";
    return exit_code::unreachable;
}

int start(Context& ctx, const Invocation&) {
    client::EnsureOptions opt;
    opt.allow_spawn = !ctx.options().no_spawn;
    opt.note = [&](const std::string& m) { ctx.note(m); };
    auto located = client::ensure_daemon(ctx.vault(), opt);
    if (!located) return ctx.unreachable(located.error().message);
    json::value doc = status_document(located->daemon);
    if (ctx.json()) {
        doc.get_object()["spawned"] = located->spawned;
        ctx.print_json(doc);
        return exit_code::ok;
    }
    ctx.out() << (located->spawned ? "coffer-daemon started" : "coffer-daemon is already running")
              << " (pid " << text_field(doc, "pid") << ", port " << text_field(doc, "port") << ")\n";
    return exit_code::ok;
}

int stop(Context& ctx, const Invocation&) {
    Probe p = client::probe_daemon(ctx.vault());
    if (p.state == Probe::State::absent) {
        if (ctx.json())
            ctx.print_json(json::object{{"status", "stopped"}, {"was_running", false}});
        else
            ctx.out() << "coffer-daemon was not running\n";
        ctx.note(p.reason);
        return exit_code::ok;
    }
    if (p.state == Probe::State::unresponsive)
        return ctx.unreachable("coffer-daemon (pid " + std::to_string(p.info->pid) +
                               ") does not answer (" + p.reason + "); if it is hung, `kill " +
                               std::to_string(p.info->pid) + "`");

    const int pid = p.info->pid;
    client::Client c(ctx.vault(), *p.info);
    auto reply = c.call("POST", client::api_path({"daemon", "stop"}));
    if (!reply.ok()) return ctx.report(reply);
    if (!reply.trace.empty()) ctx.note("trace: " + reply.trace);

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (client::process_alive(pid) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (client::process_alive(pid))
        return ctx.fail(core::Error::make(
            core::code::unavailable,
            "coffer-daemon (pid " + std::to_string(pid) +
                ") accepted the stop request but is still running after 10 s; see " +
                (ctx.vault() / vault::kLogs / vault::kDaemonLog).string()));
    if (ctx.json())
        ctx.print_json(json::object{{"status", "stopped"}, {"was_running", true}, {"pid", pid}});
    else
        ctx.out() << "coffer-daemon stopped (pid " << pid << ")\n";
    return exit_code::ok;
}

int rotate_token(Context& ctx, const Invocation&) {
    auto reply = ctx.call("POST", client::api_path({"daemon", "rotate-token"}), std::nullopt,
                          /*allow_spawn=*/false);
    return ctx.respond(reply, [&](const json::value&) {
        ctx.out() << "token rotated; the new token is in " << (ctx.vault() / vault::kDaemonJson).string()
                  << " (the old one is now refused)\n";
    });
}

}  // namespace

void register_daemon_commands(Registry& r) {
    r.add_group({"daemon", "start, stop or inspect the vault's daemon"});
    r.add({"daemon", "start", "", "start the daemon in the background unless one is running",
           {}, 0, 0, start});
    r.add({"daemon", "stop", "", "ask the daemon to exit and wait (up to 10 s) until it has",
           {}, 0, 0, stop});
    r.add({"daemon", "status", "",
           "show whether the daemon runs (exit 3 when it does not); never starts one", {}, 0, 0,
           status});
    r.add({"daemon", "rotate-token", "",
           "replace the API token (daemon.json gets the new one; the old one gets 401)", {}, 0, 0,
           rotate_token});
}

}  // namespace coffer::cli
