#include "daemon/backup_endpoint.hpp"

#include "api/body.hpp"
#include "api/route_helpers.hpp"
#include "backup/backup.hpp"
#include "core/log.hpp"
#include "resource/audit.hpp"
#include "resource/model.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <memory>

namespace coffer::daemon {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kPath = "/api/v1/backup";

http::Response reply(int status, json::object body) {
    http::Response res;
    res.status = status;
    res.body = json::serialize(body);
    return res;
}

http::Response failure(const core::Error& e) {
    json::object err{{"code", e.code},
                     {"message", e.message},
                     {"details", e.details.is_object() ? e.details : json::value(json::object{})}};
    return reply(core::http_status(e.code), json::object{{"error", std::move(err)}});
}

core::Error invalid(const std::string& pointer, const std::string& message) {
    return core::Error::make(core::code::validation_failed, "invalid backup request: " + pointer + " " + message,
                             json::object{{"errors", json::array{json::object{{"pointer", pointer}, {"message", message}}}}});
}

// {"destination": "/absolute/path", "include_master_key": false}
core::Result<backup::BackupRequest> parse(const http::Request& req) {
    auto parsed = api::parse_body(req, true, 8);
    if (!parsed) return std::move(parsed).error();
    const json::value& v = *parsed;
    auto* o = v.if_object();
    if (!o) return invalid("", "must be an object");
    for (auto& kv : *o)
        if (kv.key() != "destination" && kv.key() != "include_master_key")
            return invalid("/" + std::string(kv.key()), "is not a known field (destination, include_master_key)");
    backup::BackupRequest r;
    auto* d = o->if_contains("destination");
    if (!d || !d->is_string() || d->as_string().empty())
        return invalid("/destination", "is required: the absolute path of a new or empty folder");
    r.destination = std::string(d->as_string());
    if (!r.destination.is_absolute()) return invalid("/destination", "must be an absolute path");
    if (auto* k = o->if_contains("include_master_key")) {
        if (!k->is_bool()) return invalid("/include_master_key", "must be true or false");
        r.include_master_key = k->as_bool();
    }
    return r;
}

}  // namespace

BackupEndpoint::BackupEndpoint(fs::path vault, boost::asio::any_io_executor service, store::Database& db,
                               std::string version)
    : vault_(std::move(vault)), service_(std::move(service)), db_(db), version_(std::move(version)) {}

BackupEndpoint::~BackupEndpoint() {
    cancel();
    std::lock_guard<std::mutex> g(worker_mu_);
    if (worker_.joinable()) worker_.join();
}

void BackupEndpoint::cancel() { cancelled_ = true; }

api::Mount BackupEndpoint::mount() {
    return api::Mount{{kPath},
                      [this](http::Request&& r, http::Respond respond) { handle(std::move(r), std::move(respond)); },
                      [](int status, const std::string& code, const std::string& message, const std::string& trace) {
                          return api::error_response(status, code, message, trace);
                      },
                      false};
}

void BackupEndpoint::handle(http::Request&& req, http::Respond respond) {
    if (req.method != "POST") {
        auto res = failure(core::Error::make(core::code::bad_request, req.method + " is not allowed on " + kPath));
        res.status = 405;
        return respond(std::move(res));
    }
    auto parsed = parse(req);
    if (!parsed) return respond(failure(parsed.error()));
    if (busy_.exchange(true))
        return respond(failure(core::Error::make(core::code::conflict,
                                                 "a backup is already running; try again when it has finished",
                                                 json::object{{"reason", "backup_in_progress"}})));
    auto request = std::move(parsed).value();
    request.vault = vault_;
    request.coffer_version = version_;
    std::string actor = api::request_actor_name(req);

    boost::asio::post(service_, [this, request = std::move(request), actor, respond]() mutable {
        auto audit = [this, actor](const char* type, const std::string& target, json::object payload) {
            resource::record_audit(db_, actor, type, target, payload);
        };
        // Phase 1 here, on the service thread: nothing else changes the vault meanwhile.
        auto started = backup::BackupJob::start(request);
        if (!started) {
            core::log::warn("backup refused", {{"destination", request.destination.string()},
                                               {"error", started.error().message}});
            busy_ = false;
            return respond(failure(started.error()));
        }
        std::shared_ptr<backup::BackupJob> job(std::move(started).value());
        std::lock_guard<std::mutex> g(worker_mu_);
        if (worker_.joinable()) worker_.join();  // the previous backup's thread, already done
        worker_ = std::thread([this, job, respond, audit]() mutable {
            // Phase 2: the database pages from the pinned snapshot; the daemon keeps writing.
            auto done = job->finish([this] { return cancelled_.load(); });
            auto dest = job->request().destination.string();
            if (!done) {
                core::log::error("backup failed", {{"destination", dest}, {"error", done.error().message}});
                boost::asio::post(service_, [audit, dest, e = done.error()] {
                    audit("backup_failed", dest, json::object{{"destination", dest}, {"error", e.message}});
                });
                job.reset();  // removes the partial backup before the answer goes out
                busy_ = false;
                return respond(failure(done.error()));
            }
            core::log::info("backup written", {{"destination", dest},
                                               {"files", static_cast<std::int64_t>(done->files)},
                                               {"bytes", static_cast<std::int64_t>(done->bytes)},
                                               {"master_key", done->master_key},
                                               {"duration_ms", done->duration_ms}});
            boost::asio::post(service_, [audit, dest, r = *done] {
                audit("backup_created", dest,
                      json::object{{"destination", dest},
                                   {"files", static_cast<std::int64_t>(r.files)},
                                   {"bytes", static_cast<std::int64_t>(r.bytes)},
                                   {"master_key", r.master_key},
                                   {"schema_version", r.schema_version}});
            });
            busy_ = false;
            respond(reply(200, json::object{{"backup", done->to_json()}}));
        });
    });
}

}  // namespace coffer::daemon
