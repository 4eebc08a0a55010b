// The MCP gateway (SPEC §4): the downstream MCP surface — Streamable HTTP at /mcp, legacy
// HTTP+SSE at /sse + /messages — over the capability providers the resource framework
// publishes. Owns the sessions. Lives on the network thread; the methods marked "any thread"
// are how the service thread (lifecycle, REST) reaches it.
#pragma once

#include "http/message.hpp"
#include "mcp/call_metrics.hpp"
#include "mcp/admission.hpp"
#include "mcp/config.hpp"
#include "mcp/session.hpp"
#include "resource/providers.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace coffer::mcp {

class LocalConnection;
class LocalListener;

class Gateway {
public:
    Gateway(boost::asio::io_context& net, resource::Providers& providers, Config config);
    ~Gateway();
    Gateway(const Gateway&) = delete;
    Gateway& operator=(const Gateway&) = delete;

    // The HTTP paths it serves; requests reach `handle` after the Host/Origin guard and the token.
    static const std::vector<std::string>& paths();
    void handle(http::Request&& req, http::Respond respond);
    // A JSON-RPC-shaped HTTP error (guard and token refusals, oversized bodies on these paths).
    static http::Response http_error(int http_status, int code, const std::string& message);

    void start();     // network thread: keep-alive timer
    void shutdown();  // network thread: ends every session (providers close their upstreams)

    // Any thread.
    void refresh();            // drop every cached list, tell clients their lists changed
    void providers_changed();  // a provider appeared or went away: tell clients
    // Closes every session's link to this instance and waits until that is done (never call it
    // from a thread the network thread waits on).
    void close_instance(const std::string& uid);
    std::size_t session_count() const { return count_; }

    // front_local.cpp — MCP over a Unix-domain socket (network thread, before start). Returns ""
    // or why the socket could not be opened (the daemon then serves HTTP only). `token` gives the
    // current daemon token (it may be rotated).
    std::string listen_local(const std::filesystem::path& path, std::function<std::string()> token);
    std::filesystem::path local_path() const;  // empty when not listening

    // Before start: capability preferences and the invocation log (either may be null).
    void attach(curation::Curation* curator, curation::InvocationLog* log) {
        env_.curator = curator;
        env_.invocations = log;
    }
    // Before start: the channel core, so sessions may listen to IM channels (ADR 0041); may be null.
    void attach_channels(ChannelPort* channels) { env_.channels = channels; }
    // probe.cpp — what one server lists right now, through a short-lived provider session of the
    // gateway's own. Any thread; `done` runs once on the network thread, within the probe timeout
    // (not at all when the daemon stops first).
    struct Listed {
        std::string name, description;  // the provider's own name (or URI)
    };
    struct Listing {
        bool ok = false;
        std::string error;
        std::vector<Listed> tools, resources, prompts, templates;
    };
    void probe(const std::string& server, std::function<void(Listing)> done);

    // Before start: every routed call becomes a span handed to `sink` (and a new trace when the
    // client sent no traceparent).
    void export_spans(trace::SpanSink sink) { env_.spans = std::move(sink); }
    // Network thread: the gateway's part of /metrics (calls, latency, sessions).
    void write_metrics(metrics::Writer& w) const;

private:
    // front_mcp.cpp — Streamable HTTP
    void post_mcp(http::Request& req, http::Respond respond);
    void post_modern(http::Request& req, rpc::Message& m, http::Respond respond, bool can_stream);
    void get_mcp(http::Request& req, http::Respond respond);
    void delete_mcp(http::Request& req, http::Respond respond);
    void dispatch(const std::shared_ptr<Session>& s, rpc::Message& m, http::Request& req, http::Respond respond,
                  bool can_stream);
    // front_sse.cpp — HTTP+SSE (2024-11-05)
    void get_sse(http::Request& req, http::Respond respond);
    void post_messages(http::Request& req, http::Respond respond);

    // front_local.cpp
    struct LocalClient;
    void local_open(std::shared_ptr<LocalConnection> conn);
    void local_hello(LocalClient& client, LocalConnection& conn, std::string_view line);
    void local_line(LocalClient& client, std::string_view line);
    void stop_local();

    // admit.cpp — a new session, if the pace (rate limits) and room (the cap, where the least
    // recently used idle session gives way) allow; else why not.
    struct Refusal {
        int http_status = 429;  // 429: too fast; 503: every session is busy
        std::string message;
        std::chrono::milliseconds retry_after{1000};
        std::string code;  // error.data.code: RATE_LIMITED | TOO_MANY_SESSIONS
    };
    struct Admitted {
        std::shared_ptr<Session> session;  // null when refused
        Refusal refusal;
    };
    Admitted open_session(Door door, std::uint64_t connection, Transport t, Version v, Identity who);
    static http::Response refusal_http(const Refusal& r, const boost::json::value& id);
    static std::string refusal_rpc(const Refusal& r, const boost::json::value& id);
    std::shared_ptr<Session> evictable_session() const;

    std::shared_ptr<Session> create(Transport t, Version v, Identity who);
    std::shared_ptr<Session> find(const std::string& id, Transport t) const;
    bool full() const { return sessions_.size() >= config_.max_sessions; }
    void tick();
    void forget(const std::string& id);
    void drain_gates();
    void close_probes(const std::string& uid);  // probe.cpp; empty uid: all

    boost::asio::io_context& net_;
    Config config_;
    Admission admission_;
    std::chrono::steady_clock::time_point last_refusal_log_{};
    CallMetrics metrics_;  // before env_, which points at it
    Env env_;
    std::unique_ptr<coffer::Handoff> handoff_;  // provider threads → this thread
    std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
    std::map<std::string, std::string> stateless_;  // identity → session id
    std::atomic<std::size_t> count_{0};
    std::atomic<bool> stopped_{false};
    mutable std::mutex uses_mu_;
    std::map<std::string, int> uses_;  // instance uid → open links (read by close_instance)
    std::atomic<bool> closed_all_{false};  // shutdown has closed every session
    std::map<plugin::Plugin*, std::shared_ptr<PluginGate>> gates_;
    std::vector<std::weak_ptr<Link>> probes_;  // links of capability listings in progress
    boost::asio::steady_timer tick_;
    std::unique_ptr<LocalListener> local_;
    std::function<std::string()> local_token_;
    std::vector<std::weak_ptr<LocalConnection>> local_conns_;
};

// "streamable-http", "sse", "local-socket", "stateless" (logs and metrics).
std::string_view transport_name(Transport t);

// Transport helpers shared by the fronts.
bool accepts(const http::Request& req, std::string_view type);
bool json_body(const http::Request& req);
http::Response rpc_http(int http_status, const boost::json::value& id, int code, const std::string& message,
                        const boost::json::value& data = nullptr);

}  // namespace coffer::mcp
