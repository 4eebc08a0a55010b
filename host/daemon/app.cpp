// The daemon application (see app.hpp): start-up steps, the network and service threads, shutdown.
#include "daemon/app.hpp"

#include "daemon/surfaces.hpp"
#include "daemon/fd_limit.hpp"
#include "daemon/vault_check.hpp"

#include "core/clock.hpp"
#include "core/files.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "resource/audit.hpp"
#include "resource/retention.hpp"
#include "resource/scope.hpp"
#include "plugin/loop.hpp"
#include "plugin/turns.hpp"
#include "store/migrations.hpp"
#include "vault/layout.hpp"

#include "http_client/url.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <openssl/crypto.h>

#include <unistd.h>

#include <pthread.h>
#include <signal.h>

#include <csignal>
#include <cstdio>
#include <functional>
#include <future>
#include <limits>
#include <vector>

#ifndef COFFER_VERSION
#define COFFER_VERSION "0.0.0"
#endif

namespace coffer::daemon {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {
fs::path exe_dir() {
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : p.parent_path();
}
}  // namespace

App::App(Options options) : opt_(std::move(options)) {}

App::~App() {
    if (svc_thread_.joinable()) {
        svc_work_.reset();
        svc_.stop();
        svc_thread_.join();
    }
}

core::Result<void> App::prepare_vault() {
    // The vault folder may be reached through a link (COFFER_HOME naming one is the user's
    // choice); nothing inside it may be one. Checked before anything is created, opened or chmod-ed.
    if (auto r = core::ensure_private_dir(opt_.home, core::FollowLink::yes); !r) return r;
    if (auto r = check_vault_entries(opt_.home); !r) return r;
    for (auto sub : {vault::kLogs, vault::kPlugins, vault::kUpstreamPids, vault::kData})
        if (auto r = core::ensure_private_dir(opt_.home / sub); !r) return r;
    return {};
}

namespace {
constexpr std::chrono::milliseconds kLockWait{2000};
}  // namespace

core::Result<void> App::acquire_lock() {
    // A held lock may be on its way out: a daemon killed a moment ago (kill -9, a crash) closes its
    // files in reverse order, so its clients can see their connections end — and a shim start this
    // daemon — before the kernel has released the lock. Wait that out, briefly, before giving up.
    auto lock = vault::FileLock::take_waiting(opt_.home / vault::kDaemonLock, kLockWait);
    if (!lock && lock.error().code == core::code::unavailable)  // still held when the wait ran out
        return core::Error::make(core::code::conflict,
                                 "another coffer-daemon is already running for the vault " + opt_.home.string());
    if (!lock) return lock.error();
    lock_ = std::move(lock).value();
    return {};
}

// Descriptors for connections, upstream pipes and the store: the soft limit up to the hard one
// (at most 65536). Not fatal: the HTTP server copes with running out (ADR 0023).
core::Result<void> App::raise_fd_limit() {
    auto l = daemon::raise_fd_limit();
    auto n = [](std::uint64_t v) {
        return v == std::numeric_limits<std::uint64_t>::max() ? json::value("unlimited") : json::value(v);
    };
    json::object fields{{"soft_before", n(l.before)}, {"soft", n(l.soft)}, {"hard", n(l.hard)}};
    if (!l.error.empty()) {
        fields["error"] = l.error;
        core::log::warn("cannot raise the open file limit", fields);
    } else {
        core::log::info("open file limit", fields);
    }
    if (l.soft < opt_.http.max_connections + 64)
        core::log::warn("the open file limit is low for the HTTP connection cap; accept pauses when it is reached",
                        {{"soft", n(l.soft)}, {"max_connections", static_cast<std::uint64_t>(opt_.http.max_connections)}});
    return {};
}

// D-8: upstream children a previous daemon recorded and never reaped (it crashed) are killed.
core::Result<void> App::sweep_upstreams() {
    pids_ = std::make_unique<UpstreamPids>(opt_.home / vault::kUpstreamPids);
    auto swept = pids_->sweep();
    if (swept.removed > 0)
        core::log::info("swept upstream-pids", {{"killed", swept.killed}, {"removed", swept.removed}});
    return {};
}

// A daemon killed while replacing daemon.json or creating master.key leaves the temporary beside
// it (coffer/atomic_file.hpp). This daemon holds the vault's lock and has written nothing yet, so
// every such temporary at the top of the vault is stale. (The upstream-pids sweep empties its
// folder; plugins clean their own data folders.)
core::Result<void> App::remove_stale_temporaries() {
    for (auto& name : core::remove_stale_temporaries(opt_.home))
        core::log::info("removed a stale temporary", {{"file", name}});
    return {};
}

core::Result<void> App::open_store() {
    // 0600 before SQLite opens it: SQLite creates the -wal and -shm files with the database
    // file's mode. Side files a previous version left with another mode are made private too.
    auto path = opt_.home / vault::kDatabase;
    if (auto r = core::ensure_private_file(path, true); !r) return r;
    for (auto side : {"-wal", "-shm", "-journal"})
        if (auto r = core::ensure_private_file(path.string() + side, false); !r) return r;
    auto db = store::Database::open(path);
    if (!db) return db.error();
    db_ = std::move(db).value();
    auto v = store::migrate(*db_);
    if (!v) return v.error();
    core::log::info("database ready", {{"schema_version", *v}});
    return {};
}

// G-40: refuses to start when stored credentials have no key to open them (MasterKeyMissing).
core::Result<void> App::open_credentials() {
    credentials_ = std::make_unique<credential::Store>(*db_, opt_.home);
    return credentials_->open();
}

core::Result<void> App::load_plugins() {
    plugin::HostServices services;
    services.vault = opt_.home;
    // Plugin callbacks may come from any thread: queue onto the service thread, never block.
    services.audit = [this](const std::string& plugin, const std::string& type, const std::string& target,
                            const std::string& payload) {
        boost::asio::post(svc_, [this, plugin, type, target, payload] {
            boost::system::error_code ec;
            auto v = json::parse(payload, ec);
            json::object p = (!ec && v.is_object()) ? v.as_object() : json::object{};
            p["plugin"] = plugin;
            resource::record_audit(*db_, "system", type, target, p);
        });
    };
    // The event bus (any thread, never blocks): "plugin/<plugin>/<topic>".
    services.emit = [this](const std::string& plugin, const std::string& topic, const std::string& event) {
        auto msg = std::make_shared<events::Message>();
        msg->type = topic;
        msg->json = event;
        bus_.publish("plugin/" + plugin + "/" + topic, std::move(msg));
    };
    services.child_started = [this](const std::string& plugin, std::int64_t pid, const std::string& description) {
        return pids_->record(plugin, pid, description);
    };
    services.child_exited = [this](const std::string&, std::int64_t pid) { pids_->forget(pid); };
    // Any thread: resolves from the store's in-memory tokens; the audit row is queued.
    services.resolve_credential = [this](const std::string& plugin, std::string_view ref, std::string& value) {
        auto r = credentials_->resolve(ref);
        std::string target(ref);
        bool ok = r.outcome == credential::Resolution::Outcome::ok;
        boost::asio::post(svc_, [this, plugin, target, ok] {
            resource::record_audit(*db_, "system", "credential_resolved", target,
                                        json::object{{"plugin", plugin}, {"ok", ok}});
        });
        switch (r.outcome) {
            case credential::Resolution::Outcome::ok: value = std::move(r.value); return COFFER_OK;
            case credential::Resolution::Outcome::invalid_ref: return COFFER_E_INVALID;
            case credential::Resolution::Outcome::not_found: return COFFER_E_NOT_FOUND;
            case credential::Resolution::Outcome::unavailable: return COFFER_E_UNAVAILABLE;
        }
        return COFFER_E_INTERNAL;
    };
    // ABI 1.8: a plugin keeps a secret (an upstream's OAuth tokens) in its own namespace. The
    // store writes the database, so the write runs on the service thread: at once when the
    // plugin is already there (an action), else queued in call order. Audited by Store::set /
    // remove as credential_set / credential_deleted with the plugin as actor.
    services.store_credential = [this](const std::string& plugin, std::string ref, std::string value) {
        auto write = [this, plugin, ref = std::move(ref), value = std::move(value)]() mutable {
            std::string actor = "plugin:" + plugin;
            bool ok = true;
            if (value.empty()) (void)credentials_->remove(ref, actor);  // already gone is as good
            else ok = static_cast<bool>(credentials_->set(ref, value, actor));
            OPENSSL_cleanse(value.data(), value.size());
            return ok;
        };
        if (svc_.get_executor().running_in_this_thread()) return write() ? COFFER_OK : COFFER_E_UNAVAILABLE;
        boost::asio::post(svc_, [write = std::move(write)]() mutable { write(); });
        return COFFER_OK;
    };
    // ABI 1.9: plugins may run their I/O on this (the network) thread instead of their own.
    services.loop = std::make_shared<plugin::Loop>(net_);
    registry_ = std::make_unique<plugin::Registry>(std::move(services));
    std::vector<fs::path> dirs{exe_dir() / ".." / COFFER_PLUGIN_SUBDIR, opt_.home / vault::kPlugins};
    for (auto& d : opt_.plugin_dirs) dirs.push_back(d);
    registry_->discover(dirs);
    return {};
}

// Hybrid tool search, when $COFFER_TOOLSEARCH_EMBEDDINGS_* name an endpoint: its key is resolved
// from the credential store now (a key that cannot be resolved stops startup rather than
// silently searching without it).
core::Result<void> App::tool_search_settings(toolsearch::HybridSettings& out) {
    if (opt_.toolsearch_embeddings_url.empty()) return {};
    out.base_url = opt_.toolsearch_embeddings_url;
    out.model = opt_.toolsearch_embeddings_model;
    out.vector_weight = opt_.toolsearch_vector_weight;
    if (auto& key = opt_.toolsearch_embeddings_key; !key.empty()) {
        auto r = credentials_->resolve(std::string_view(key).substr(std::string_view("credref:").size()));
        if (r.outcome != credential::Resolution::Outcome::ok)
            return core::Error::make(core::code::bad_request,
                                     "COFFER_TOOLSEARCH_EMBEDDINGS_KEY: " + r.message);
        out.api_key = std::move(r.value);
    }
    // Only the endpoint's origin is logged: a path or query could carry something private (the
    // URL was checked with the same parser when the options were read).
    core::log::info("tool search: hybrid", {{"embeddings", http_client::parse_url(out.base_url).origin()}, {"model", out.model},
                                            {"vector_weight", static_cast<double>(out.vector_weight)}});
    return {};
}

core::Result<void> App::start_resources() {
    resources_ = std::make_unique<resource::Service>(*db_, *registry_, resource::this_machine());
    mcp::Config cfg;
    cfg.idle_timeout = std::chrono::seconds(opt_.mcp_idle_timeout_s);
    cfg.page_size = static_cast<std::size_t>(opt_.mcp_page_size);
    if (opt_.mcp_max_sessions) cfg.max_sessions = static_cast<std::size_t>(*opt_.mcp_max_sessions);
    if (opt_.mcp_session_grace_s) cfg.session_grace = std::chrono::seconds(*opt_.mcp_session_grace_s);
    if (opt_.mcp_list_timeout_ms) cfg.list_timeout = std::chrono::milliseconds(*opt_.mcp_list_timeout_ms);
    if (auto& r = opt_.mcp_session_rate) cfg.http_sessions = cfg.local_sessions = mcp::Rate{r->per_second, r->burst};
    if (auto& r = opt_.mcp_connection_rate) cfg.connection_sessions = mcp::Rate{r->per_second, r->burst};
    cfg.machine = resources_->machine();
    cfg.server_version = COFFER_VERSION;
    if (auto r = tool_search_settings(cfg.tool_search); !r) return r;
    gateway_ = std::make_unique<mcp::Gateway>(net_, resources_->providers(), std::move(cfg));
    // Lifecycle (service thread) → gateway (network thread): before an instance stops, changes or
    // goes away, every session's link to it is closed; additions and removals reach clients as
    // list_changed.
    resources_->providers().set_closer([this](const std::string& uid) { gateway_->close_instance(uid); });
    resources_->providers().set_listener([this] { gateway_->providers_changed(); });
    // Curation (G-20…G-22) and the invocation log (G-23): read by the gateway, written here.
    curation_ = std::make_unique<curation::Curation>(*db_, svc_.get_executor());
    if (auto r = curation_->load(); !r) return r;
    curation_->on_change([this](curation::Type) { gateway_->providers_changed(); });
    invocations_ = std::make_unique<curation::InvocationLog>(*db_, svc_.get_executor());
    resource::register_retained_table({"invocations", "ts_ms", 30, "mcp_invocations"});
    gateway_->attach(curation_.get(), invocations_.get());
    // Spans of routed calls over OTLP/HTTP, when a collector is configured.
    if (!opt_.otlp_endpoint.empty()) {
        auto exporter = OtlpExporter::create(net_, opt_.otlp_endpoint, COFFER_VERSION);
        if (!exporter) return exporter.error();
        otlp_ = *exporter;
        gateway_->export_spans(otlp_->sink());
        core::log::info("exporting spans over OTLP/HTTP", {{"endpoint", opt_.otlp_endpoint}});
    }
    resources_->start_all();
    return {};
}

// The turn orchestrator (ADR 0034): on the service thread; drivers' events reach it through one
// Handoff. A turn a previous daemon left running is marked failed first.
core::Result<void> App::start_chat() {
    to_service_ = std::make_unique<Handoff>(svc_);
    chat_ = std::make_unique<chat::Orchestrator>(*db_, resources_->agents(), bus_, to_service_->sender());
    if (auto r = chat_->recover(); !r) return r.error();
    auto* orchestrator = chat_.get();
    plugin::set_turn_sink(std::make_shared<const plugin::TurnSink>(
        [orchestrator](std::uint64_t turn, json::object event) { return orchestrator->on_driver_event(turn, std::move(event)); }));
    // IM channels (ADR 0035): adapters already started get their channel now, later ones when
    // the lifecycle publishes them; messages a previous daemon kept but did not answer go on.
    channels_ = std::make_unique<channels::Service>(*db_, *resources_, *chat_, bus_, svc_.get_executor(),
                                                    to_service_->sender(), channels::Service::Options{});
    channels_->start();
    gateway_->attach_channels(channels_.get());  // sessions may listen to channels (ADR 0041)
    return {};
}

core::Result<void> App::start_http() {
    token_ = core::random_hex(32);
    api_ = std::make_unique<api::Api>(api::Context{*this, *resources_, *registry_, *db_}, svc_.get_executor());
    backup_ = std::make_unique<BackupEndpoint>(opt_.home, svc_.get_executor(), *db_, COFFER_VERSION);
    add_surfaces(*api_, SurfaceDeps{*resources_, *registry_, *gateway_, *curation_, *credentials_, *backup_, *db_,
                                    svc_.get_executor(), *chat_, *channels_, net_.get_executor(),
                                    std::chrono::milliseconds(opt_.chat_heartbeat_ms), *invocations_, COFFER_VERSION,
                                    bus_, console_,
                                    std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                                        .count()});
    server_ = std::make_unique<http::Server>(
        net_, [this](http::Request&& r, http::Respond respond) { api_->handle(std::move(r), std::move(respond)); },
        [](int status, const std::string& code, const std::string& message, const std::string& target) {
            auto trace = core::random_hex(8);
            core::log::warn("http refused", {{"trace", trace}, {"status", status}, {"message", message}});
            auto path = target.substr(0, target.find('?'));
            for (auto& p : mcp::Gateway::paths()) {
                if (path != p) continue;  // an MCP client gets a JSON-RPC error
                auto res = mcp::Gateway::http_error(status, mcp::rpc::code::invalid_request, "Invalid Request: " + message);
                res.headers.emplace_back("X-Coffer-Trace", trace);
                return res;
            }
            return api::error_response(status, code, message, trace);
        },
        opt_.http);
    auto port = server_->listen(opt_.port.value_or(kDefaultPort), opt_.port ? 0 : kPortFallbacks);
    if (!port) return port.error();
    port_ = *port;
    // The shim's fast path (ADR 0019); HTTP alone still works if the socket cannot be opened.
    if (auto error = gateway_->listen_local(opt_.home / vault::kMcpSocket, [this] { return token(); }); !error.empty())
        core::log::warn("mcp local socket unavailable; clients use HTTP", {{"error", error}});
    return {};
}

core::Result<void> App::write_state_file() {
    json::object state{{"pid", static_cast<std::int64_t>(::getpid())},
                       {"port", port_},
                       {"token", token()},
                       {"version", COFFER_VERSION},
                       {"started_at", started_at_},
                       {"vault", opt_.home.string()}};
    if (auto sock = gateway_->local_path(); !sock.empty()) state["mcp_socket"] = sock.string();
    return core::write_file_atomic(opt_.home / vault::kDaemonJson, json::serialize(state), 0600);
}

json::object App::status() const {
    return json::object{{"status", stopping_ ? "stopping" : "ready"},
                        {"port", port_},
                        {"pid", static_cast<std::int64_t>(::getpid())},
                        {"started_at", started_at_},
                        {"version", COFFER_VERSION},
                        {"vault", opt_.home.string()}};
}

std::string App::token() const {
    std::lock_guard<std::mutex> g(token_mu_);
    return token_;
}

core::Result<void> App::rotate_token(const std::string& actor) {
    {
        std::lock_guard<std::mutex> g(token_mu_);
        token_ = core::random_hex(32);
    }
    console_.clear();  // a rotation revokes every credential, the console's sessions included
    if (auto r = write_state_file(); !r) return r;
    core::log::info("token rotated", {{"actor", actor}});
    return resource::write_audit(*db_, actor, "token_rotated", "daemon", json::object{});
}

void App::request_stop() {
    if (stopping_.exchange(true)) return;
    boost::asio::post(net_, [this] { shutdown(); });
}

void App::schedule_retention(int delay_s) {
    if (!retention_timer_) retention_timer_ = std::make_unique<boost::asio::steady_timer>(svc_);
    retention_timer_->expires_after(std::chrono::seconds(delay_s));
    retention_timer_->async_wait([this](boost::system::error_code ec) {
        if (ec || stopping_) return;
        purge_step(0);
    });
}

// One small batch at a time, re-posted, so API requests interleave with a long purge. 500 rows
// keep each turn to a few milliseconds (coffer-bench-invocations: 1,000,000 rows under REST load).
constexpr int kPurgeBatch = 500;

void App::purge_step(std::size_t table_index) {
    if (stopping_) return;
    auto tables = resource::list_retention(*db_);
    if (!tables || table_index >= tables->size()) return schedule_retention(3600);
    auto name = std::string(tables->at(table_index).as_object().at("table").as_string());
    auto n = resource::purge_batch(*db_, name, core::now_ms(), kPurgeBatch);
    if (!n) {
        core::log::error("retention purge failed", {{"table", name}, {"error", n.error().message}});
        return boost::asio::post(svc_, [this, table_index] { purge_step(table_index + 1); });
    }
    if (*n > 0) {
        core::log::debug("retention purged", {{"table", name}, {"rows", *n}});
        return boost::asio::post(svc_, [this, table_index] { purge_step(table_index); });
    }
    boost::asio::post(svc_, [this, table_index] { purge_step(table_index + 1); });
}

void App::shutdown() {
    stopping_ = true;
    core::log::info("daemon stopping");
    if (server_) server_->stop();
    if (backup_) backup_->cancel();
    signals_.cancel();
    // MCP sessions first (on this thread): providers close their upstreams before the lifecycle
    // stops their instances.
    if (gateway_) gateway_->shutdown();
    if (otlp_) otlp_->stop();
    // Drain the service thread: stop instances and plugins there, then let it end.
    std::promise<void> done;
    auto fut = done.get_future();
    boost::asio::post(svc_, [this, &done] {
        if (retention_timer_) retention_timer_->cancel();
        if (invocations_) invocations_->flush();  // what the closed sessions recorded last
        if (channels_) channels_->shutdown();     // adapters stop receiving before their instances stop
        if (chat_) chat_->shutdown();             // running turns recorded as failed; no more events
        plugin::set_turn_sink(nullptr);
        if (resources_) resources_->stop_all();
        if (registry_) registry_->shutdown();
        if (db_) resource::record_audit(*db_, "system", "daemon_stopped", "daemon", json::object{});
        done.set_value();
    });
    // Plugins that run their I/O on this thread (the lent loop, ABI 1.9) need it while they stop
    // their instances and shut down: keep it turning until the service thread is done.
    while (fut.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) {
        try {
            if (net_.run_one_for(std::chrono::milliseconds(5)) == 0) {
                if (net_.stopped()) net_.restart();
                fut.wait_for(std::chrono::milliseconds(1));
            }
        } catch (...) {
            core::log::error("network thread handler threw during shutdown");
        }
    }
    // Whatever a plugin left recorded is ours and must not outlive us (G-12).
    if (pids_) {
        auto left = pids_->sweep(500);
        if (left.removed > 0) core::log::warn("upstream children left at shutdown", {{"killed", left.killed}});
    }
    std::error_code ec;
    fs::remove(opt_.home / vault::kDaemonJson, ec);
    // Let in-flight responses finish writing, then end the loop.
    auto t = std::make_shared<boost::asio::steady_timer>(net_, std::chrono::milliseconds(100));
    t->async_wait([this, t](boost::system::error_code) { net_.stop(); });
}

int App::run() {
    // Hold SIGTERM/SIGINT until the signal set is armed, so a stop requested during startup
    // still ends in a clean shutdown (threads started below inherit the mask).
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    started_at_ = core::now_iso();
    if (auto r = prepare_vault(); !r) {
        std::fprintf(stderr, "coffer-daemon: %s\n", r.error().message.c_str());
        return 1;
    }
    if (auto r = acquire_lock(); !r) {
        std::fprintf(stderr, "coffer-daemon: %s\n", r.error().message.c_str());
        return 2;
    }
    core::log::init(opt_.home / vault::kLogs, opt_.log_stderr);
    ::signal(SIGPIPE, SIG_IGN);

    struct Step {
        const char* name;
        std::function<core::Result<void>()> fn;
    };
    std::vector<Step> steps{
        {"raise_fd_limit", [this] { return raise_fd_limit(); }},
        {"sweep_upstreams", [this] { return sweep_upstreams(); }},
        {"remove_stale_temporaries", [this] { return remove_stale_temporaries(); }},
        {"open_store", [this] { return open_store(); }},
        {"open_credentials", [this] { return open_credentials(); }},
        {"load_plugins", [this] { return load_plugins(); }},
        {"start_resources", [this] { return start_resources(); }},
        {"start_chat", [this] { return start_chat(); }},
        {"start_http", [this] { return start_http(); }},
        {"write_state_file", [this] { return write_state_file(); }},
    };
    for (auto& s : steps) {
        auto r = s.fn();
        if (!r) {
            core::log::error("startup failed", {{"step", s.name}, {"error", r.error().message}});
            std::fprintf(stderr, "coffer-daemon: %s\n", r.error().message.c_str());
            if (resources_) resources_->stop_all();
            if (registry_) registry_->shutdown();
            core::log::shutdown();
            return 1;
        }
    }
    resource::record_audit(*db_, "system", "daemon_started", "daemon",
                                json::object{{"version", COFFER_VERSION}, {"port", port_}});

    svc_work_ = std::make_unique<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>(
        svc_.get_executor());
    svc_thread_ = std::thread([this] { svc_.run(); });
    schedule_retention(5);
    gateway_->start();

    signals_.add(SIGTERM);
    signals_.add(SIGINT);
    signals_.async_wait([this](boost::system::error_code ec, int) {
        if (!ec) request_stop();
    });
    pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);  // a pending stop is delivered now
    core::log::info("ready", {{"port", port_}, {"pid", static_cast<std::int64_t>(::getpid())},
                              {"vault", opt_.home.string()}, {"version", COFFER_VERSION}});
    if (opt_.log_stderr) std::fprintf(stderr, "coffer-daemon ready on http://127.0.0.1:%u (vault %s)\n", port_, opt_.home.c_str());

    // A handler that throws must not take the daemon down: log it and keep serving.
    for (;;) {
        try {
            net_.run();
            break;
        } catch (const std::exception& e) {
            core::log::error("network thread handler threw", {{"what", e.what()}});
        } catch (...) {
            core::log::error("network thread handler threw", {{"what", "unknown exception"}});
        }
    }

    svc_work_.reset();
    svc_.stop();
    if (svc_thread_.joinable()) svc_thread_.join();
    core::log::info("daemon stopped");
    core::log::shutdown();
    return 0;
}

int run_main(int argc, char** argv) {
    auto opt = parse_options(argc, argv);
    if (!opt) {
        std::fprintf(stderr, "coffer-daemon: %s\n%s", opt.error().message.c_str(), usage());
        return 64;
    }
    if (opt->help) {
        std::fputs(usage(), stdout);
        return 0;
    }
    if (opt->version) {
        std::printf("coffer-daemon %s\n", COFFER_VERSION);
        return 0;
    }
    App app(std::move(opt).value());
    return app.run();
}

}  // namespace coffer::daemon
