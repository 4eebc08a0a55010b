// The daemon application: startup as a list of small steps, then the event loops.
#pragma once

#include "api/api.hpp"
#include "channels/service.hpp"
#include "chat/orchestrator.hpp"
#include "console/sessions.hpp"
#include "events/bus.hpp"
#include "curation/curation.hpp"
#include "curation/invocations.hpp"
#include "daemon/backup_endpoint.hpp"
#include "credential/store.hpp"
#include "daemon/options.hpp"
#include "toolsearch/hybrid.hpp"
#include "daemon/otlp_exporter.hpp"
#include "daemon/upstream_pids.hpp"
#include "http/server.hpp"
#include "mcp/gateway.hpp"
#include "plugin/registry.hpp"
#include "resource/service.hpp"
#include "store/database.hpp"
#include "vault/file_lock.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <coffer/handoff.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace coffer::daemon {

class App : public api::DaemonControl {
public:
    explicit App(Options options);
    ~App() override;

    // Starts, serves until SIGTERM/SIGINT or POST /daemon/stop, shuts down. Returns the exit code.
    int run();

    // DaemonControl
    boost::json::object status() const override;
    std::string token() const override;
    core::Result<void> rotate_token(const std::string& actor) override;
    void request_stop() override;

private:
    core::Result<void> raise_fd_limit();
    core::Result<void> prepare_vault();
    core::Result<void> acquire_lock();
    core::Result<void> sweep_upstreams();
    core::Result<void> remove_stale_temporaries();
    core::Result<void> open_store();
    core::Result<void> open_credentials();
    core::Result<void> load_plugins();
    core::Result<void> start_resources();
    core::Result<void> tool_search_settings(toolsearch::HybridSettings& out);
    core::Result<void> start_chat();
    core::Result<void> start_http();
    core::Result<void> write_state_file();
    void schedule_retention(int delay_s);
    void purge_step(std::size_t table_index);
    void shutdown();

    Options opt_;
    boost::asio::io_context net_{1};
    boost::asio::io_context svc_{1};
    std::unique_ptr<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> svc_work_;
    std::thread svc_thread_;
    boost::asio::signal_set signals_{net_};
    std::unique_ptr<boost::asio::steady_timer> retention_timer_;

    vault::FileLock lock_;  // daemon.lock, held while the daemon runs
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<credential::Store> credentials_;
    std::unique_ptr<plugin::Registry> registry_;
    std::unique_ptr<resource::Service> resources_;
    std::unique_ptr<UpstreamPids> pids_;
    std::unique_ptr<curation::Curation> curation_;         // outlive the gateway, which reads them
    std::unique_ptr<curation::InvocationLog> invocations_;
    std::unique_ptr<mcp::Gateway> gateway_;
    std::shared_ptr<OtlpExporter> otlp_;  // spans of routed calls, when $COFFER_OTLP_ENDPOINT is set
    events::Bus bus_;                                  // emit() and the conversations' events
    std::unique_ptr<Handoff> to_service_;              // driver threads → the service thread
    std::unique_ptr<chat::Orchestrator> chat_;
    std::unique_ptr<channels::Service> channels_;      // IM channels, on top of the orchestrator
    std::unique_ptr<api::Api> api_;
    std::unique_ptr<http::Server> server_;
    std::unique_ptr<BackupEndpoint> backup_;  // POST /api/v1/backup (destroyed first: joins its worker)

    console::Sessions console_;  // the web console's login codes and browser sessions

    mutable std::mutex token_mu_;
    std::string token_;
    std::uint16_t port_ = 0;
    std::string started_at_;
    std::atomic<bool> stopping_{false};
};

// main() in one line.
int run_main(int argc, char** argv);

}  // namespace coffer::daemon
