// coffer backup <dest> [--include-master-key] | coffer restore <src>   (SPEC D-7, docs/backup.md)
//
// backup: a running daemon writes it (POST /api/v1/backup) and keeps serving meanwhile; with no
// daemon the CLI writes it itself under the vault's daemon.lock. It never starts a daemon.
// restore: always here, into an empty vault with no daemon (coffer::backup::restore).
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "backup/backup.hpp"
#include "backup/errors.hpp"
#include "backup/restore.hpp"
#include "client/client.hpp"
#include "client/locator.hpp"
#include "client/url.hpp"
#include "vault/layout.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <ostream>

#ifndef COFFER_VERSION
#define COFFER_VERSION "0.0.0"
#endif

namespace coffer::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

fs::path absolute_path(const std::string& arg) {
    std::error_code ec;
    auto p = fs::absolute(fs::path(arg), ec);
    return (ec ? fs::path(arg) : p).lexically_normal();
}

bool flag_of(const json::value& v, std::string_view key) {
    const auto& f = field(v, key);
    return f.is_bool() && f.as_bool();
}

// What the user must know about master.key, on stderr (stdout stays one JSON document).
void master_key_notes(Context& ctx, const json::value& report, bool asked) {
    fs::path dest(text_field(report, "destination"));
    if (flag_of(report, "master_key")) {
        ctx.err() << "warning: " << (dest / vault::kMasterKey).string()
                  << " is in this backup: whoever can read the backup can decrypt every credential in it.\n"
                     "         Keep it offline or encrypted, and never next to copies made without the key.\n";
    } else if (asked) {
        ctx.err() << "note: the vault has no master.key, so the backup holds none\n";
    } else if (flag_of(report, "master_key_in_vault")) {
        ctx.err() << "note: master.key is not in this backup (use --include-master-key to add it); the credentials "
                     "in it can only be decrypted with this vault's master.key — keep a copy of that key safe\n";
    }
    if (const auto* skipped = field(report, "skipped").if_array(); skipped && !skipped->empty())
        ctx.err() << "note: " << skipped->size()
                  << " entr" << (skipped->size() == 1 ? "y" : "ies")
                  << " of the vault were left out (not files, folders or links, or a reserved name): "
                  << compact_json(*skipped) << '\n';
}

int print_backup(Context& ctx, json::value report, const char* via, bool asked) {
    report.as_object()["via"] = via;
    master_key_notes(ctx, report, asked);
    if (ctx.json()) {
        ctx.print_json(json::object{{"backup", report}});
        return exit_code::ok;
    }
    ctx.out() << "backup written to " << text_field(report, "destination") << '\n'
              << "  " << text_field(report, "files") << " files, " << text_field(report, "directories")
              << " folders, " << text_field(report, "bytes") << " bytes; database schema "
              << text_field(report, "schema_version") << '\n'
              << "  " << (std::string(via) == "daemon" ? "made by the running daemon (it kept serving)"
                                                       : "made offline (no daemon was running)")
              << " in " << text_field(report, "duration_ms") << " ms\n";
    return exit_code::ok;
}

int backup(Context& ctx, const Invocation& inv) {
    backup::BackupRequest req;
    req.vault = ctx.vault();
    req.destination = absolute_path(inv.args[0]);
    req.include_master_key = inv.flag("include-master-key");
    req.coffer_version = COFFER_VERSION;

    client::Probe probe = client::probe_daemon(ctx.vault());
    if (probe.state == client::Probe::State::unresponsive)
        return ctx.unreachable("coffer-daemon (pid " + std::to_string(probe.info->pid) + ") does not answer (" +
                                   probe.reason + "); a backup needs it answering, or stopped",
                               false);
    if (probe.state == client::Probe::State::live) {
        ctx.note("the running daemon (pid " + std::to_string(probe.info->pid) + ") writes the backup");
        client::ClientOptions opt;
        opt.timeouts.request = std::chrono::hours(6);  // a large database takes its time
        client::Client c(ctx.vault(), *probe.info, opt);
        json::object body{{"destination", req.destination.string()}, {"include_master_key", req.include_master_key}};
        auto reply = c.call("POST", client::api_path({"backup"}), json::value(std::move(body)));
        if (!reply.ok()) return ctx.report(reply);
        if (!reply.trace.empty()) ctx.note("trace: " + reply.trace);
        const auto& report = field(reply.body(), "backup");
        if (!report.is_object())
            return ctx.fail(core::Error::make("BAD_RESPONSE", "the daemon's answer holds no \"backup\" object"));
        return print_backup(ctx, report, "daemon", req.include_master_key);
    }
    ctx.note("no daemon is running for " + ctx.vault().string() + "; writing the backup offline");
    auto done = backup::backup_offline(req);
    if (!done) return ctx.fail(done.error());
    return print_backup(ctx, done->to_json(), "offline", req.include_master_key);
}

int restore(Context& ctx, const Invocation& inv) {
    backup::RestoreRequest req{absolute_path(inv.args[0]), ctx.vault()};
    auto done = backup::restore(req);
    if (!done) return ctx.fail(done.error());
    auto report = done->to_json();
    if (ctx.json()) {
        ctx.print_json(json::object{{"restore", report}});
        return exit_code::ok;
    }
    ctx.out() << "restored the backup of " << done->created_at << " (coffer " << done->coffer_version
              << ", schema " << done->schema_version << ") into " << done->vault.string() << '\n'
              << "  " << done->files << " files, " << done->directories << " folders, " << done->bytes << " bytes"
              << (done->master_key ? "; master.key included" : "") << '\n';
    if (!done->master_key)
        ctx.out() << "  the backup holds no master.key: if the vault stores credentials, copy the original "
                     "master.key into "
                  << done->vault.string() << " (mode 0600) before starting the daemon\n";
    ctx.out() << "start it with `coffer daemon start`\n";
    return exit_code::ok;
}

}  // namespace

void register_backup_commands(Registry& r) {
    r.add_group({"backup", "write a backup folder of the vault (the daemon keeps serving)"});
    r.add({"backup", "", "<dest> [--include-master-key]",
           "back up the database, the vault's file trees and (only when asked) master.key into <dest>, a new or "
           "empty folder",
           {{"include-master-key", "", "also copy master.key (the backup can then decrypt its credentials)"}}, 1, 1,
           backup});
    r.add_group({"restore", "restore a backup folder into a new or empty vault"});
    r.add({"restore", "", "<src>",
           "check every file of the backup in <src> against its manifest, then restore it into the vault "
           "(--home/COFFER_HOME), which must be empty and have no daemon running",
           {}, 1, 1, restore});
}

}  // namespace coffer::cli
