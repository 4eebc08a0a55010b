#include "app/context.hpp"

#include "app/format.hpp"
#include "client/codes.hpp"
#include "client/errors.hpp"
#include "client/locator.hpp"
#include "client/process.hpp"
#include "client/vault.hpp"
#include "vault/layout.hpp"

#include <boost/json/serialize.hpp>

#include <ostream>

namespace coffer::cli {
namespace json = boost::json;

Context::Context(GlobalOptions options, std::ostream& out, std::ostream& err)
    : options_(std::move(options)),
      vault_(options_.home),
      out_(out),
      err_(err),
      safe_out_(out),
      safe_err_(err) {}

std::ostream& Context::raw_out() {
    safe_out_.flush();
    return out_;
}

namespace {
// True when the request never reached a daemon (connection refused): safe to locate and retry.
bool never_connected(const client::ApiReply& r) {
    if (r.outcome != client::ApiReply::Outcome::unreachable) return false;
    auto* d = r.error.details.if_object();
    auto* stage = d ? d->if_contains("stage") : nullptr;
    return stage && stage->is_string() && stage->as_string() == "connect";
}
}  // namespace

client::ApiReply Context::call(std::string_view method, std::string target,
                               const std::optional<json::value>& body, bool allow_spawn) {
    if (!client_) {
        // Fast path: a live coffer-daemon named by daemon.json gets the request directly (no
        // status round trip first); only if nothing answers do we run detect-or-spawn.
        if (auto info = client::read_daemon_info(vault_); info && client::process_alive(info->pid) &&
                                                          client::process_name(info->pid).find("coffer") != std::string::npos) {
            client_ = std::make_unique<client::Client>(vault_, info.value());
            auto reply = client_->call(method, target, body);
            if (!never_connected(reply)) return reply;
            client_.reset();
        }
    }
    if (!client_) {
        client::EnsureOptions opt;
        opt.allow_spawn = allow_spawn && !options_.no_spawn;
        opt.note = [this](const std::string& m) { note(m); };
        auto located = client::ensure_daemon(vault_, opt);
        spawn_refused_ = !opt.allow_spawn;
        if (!located) {
            client::ApiReply reply;
            reply.outcome = client::ApiReply::Outcome::unreachable;
            reply.error = std::move(located).error();
            return reply;
        }
        if (located->spawned)
            note("started coffer-daemon (pid " + std::to_string(located->daemon.info.pid) +
                 ", port " + std::to_string(located->daemon.info.port) + ")");
        client_ = std::make_unique<client::Client>(vault_, located->daemon.info);
    }
    return client_->call(method, std::move(target), body);
}

int Context::respond(const client::ApiReply& reply,
                     const std::function<void(const json::value&)>& human) {
    if (!reply.ok()) return report(reply);
    if (!reply.trace.empty()) note("trace: " + reply.trace);
    if (json() && !reply.raw.empty())
        raw_out() << reply.raw << '\n';  // compact JSON already (validated): print it as sent
    else if (json())
        print_json(reply.body().is_null() ? json::value(json::object()) : reply.body());
    else
        human(reply.body());
    return exit_code::ok;
}

int Context::report(const client::ApiReply& reply) {
    if (reply.outcome == client::ApiReply::Outcome::unreachable)
        return unreachable(reply.error.message, !(spawn_refused_ && !client_));
    return fail(reply.error, reply.status, reply.trace);
}

int Context::fail(const core::Error& error, int http_status, std::string_view trace) {
    if (json()) print_json(client::error_envelope(error));
    err() << "error: " << error.message << " [" << error.code << "]\n";
    if (error.code == core::code::validation_failed) {
        if (const auto* list = field(error.details, "errors").if_array()) {
            for (const auto& e : *list) {
                std::string pointer = text_field(e, "pointer", "/");
                err() << "  " << pointer << ": " << text_field(e, "message") << '\n';
            }
        }
    }
    if (verbose()) {
        bool empty = error.details.is_null() ||
                     (error.details.is_object() && error.details.get_object().empty());
        if (!empty) err() << "details: " << compact_json(error.details) << '\n';
        if (http_status != 0) err() << "http status: " << http_status << '\n';
        if (!trace.empty()) err() << "trace: " << trace << '\n';
    }
    return exit_code::failed;
}

int Context::unreachable(const std::string& message, bool spawn_was_allowed) {
    if (json()) {
        json::object details;
        details["vault"] = vault_.string();
        print_json(client::error_envelope(
            core::Error::make(client::code::daemon_unreachable, message, std::move(details))));
    }
    err() << "error: cannot reach coffer-daemon: " << message << '\n';
    if (options_.no_spawn)
        err() << "hint: start it with `coffer daemon start`, or run without --no-spawn / "
                "COFFER_NO_SPAWN to let the CLI start it\n";
    else if (!spawn_was_allowed)
        err() << "hint: start it with `coffer daemon start`\n";
    else
        err() << "hint: `coffer daemon status --verbose` shows what was found; the daemon logs to "
             << (vault_ / vault::kLogs / vault::kDaemonLog).string() << '\n';
    return exit_code::unreachable;
}

int Context::usage_error(const std::string& message, const std::string& usage) {
    if (json()) print_json(client::error_envelope(core::Error::make(usage_code, message)));
    err() << "error: " << message << "\n\n" << usage;
    return exit_code::usage;
}

void Context::print_json(const json::value& document) { raw_out() << json::serialize(document) << '\n'; }

void Context::note(const std::string& message) {
    if (verbose()) err() << "coffer: " << message << '\n';
}

}  // namespace coffer::cli
