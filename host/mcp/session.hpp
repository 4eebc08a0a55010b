// One gateway session (G-7): a downstream MCP session and the provider links it opened lazily.
// Everything here runs on the network thread.
#pragma once

#include "http/message.hpp"
#include "mcp/channel_port.hpp"
#include "mcp/config.hpp"
#include "mcp/exchange.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/link.hpp"
#include "mcp/resumable.hpp"
#include "mcp/trace_context.hpp"
#include "mcp/versions.hpp"
#include "resource/providers.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::curation {
class Curation;
class InvocationLog;
}  // namespace coffer::curation

namespace coffer::mcp {

enum class Transport { streamable, sse, stateless, local };

// Who is on the other end: the shim's --agent and cwd (params._meta["coffer/agent"], ["coffer/cwd"]),
// the client's implementation info and capabilities, and the IM channels it listens to
// (params._meta["coffer/channels"], the shim's --channel).
struct Identity {
    std::string agent, cwd;
    boost::json::object client_info;
    boost::json::object capabilities;
    std::vector<std::string> channels;
};

// Per request: what the transport learned besides the message.
struct RequestContext {
    Version version = kLatestLegacy;
    int log_level = -1;                 // 2026-07-28: from _meta; -1 = none
    boost::json::object capabilities;   // 2026-07-28: from _meta
    std::shared_ptr<http::Peer> peer;   // the HTTP client, when there is one per request
    std::map<std::string, std::string> param_headers;  // 2026-07-28: Mcp-Param-* (lower-case names)
};

class CallMetrics;

// What a session needs from its gateway.
struct Env {
    boost::asio::any_io_executor net;
    resource::Providers& providers;
    const Config& config;
    std::function<void(const std::string& id)> closed;  // the session ended: drop it from the registry
    std::function<void(const std::string& uid)> link_opened, link_closed;  // which instances are in use
    std::function<std::shared_ptr<PluginGate>(plugin::Plugin*)> gate;     // the way into a plugin
    curation::Curation* curator = nullptr;        // capability preferences (G-20…G-22); may be null
    curation::InvocationLog* invocations = nullptr;  // the invocation log (G-23); may be null
    coffer::Handoff::Sender handoff;  // provider threads → network thread (completions, notifications)
    CallMetrics* metrics = nullptr;   // /metrics counters (network thread); may be null
    trace::SpanSink spans;            // ended spans, when exported (OTLP); empty: none
    ChannelPort* channels = nullptr;  // the channel core, for claude/channel sessions; may be null
};

// The providers this session may see (machine and agent scope, addressable names), by name.
struct Visible {
    std::shared_ptr<const std::vector<resource::Provider>> all;
    std::vector<const resource::Provider*> list;
    const resource::Provider* find(std::string_view server) const;
};

struct SearchMemo;  // builtin_search.cpp

class Session final : public LinkEvents, public std::enable_shared_from_this<Session> {
public:
    Session(Env& env, std::string id, Transport transport, Version version, Identity who);
    ~Session() override;

    const std::string& id() const { return id_; }
    Transport transport() const { return transport_; }
    Version version() const { return version_; }
    bool closed() const { return closed_; }
    const Identity& identity() const { return who_; }
    std::size_t in_flight() const { return exchanges_.size(); }

    // A message from the client. Requests are answered on `reply`; notifications and responses
    // pass a null reply.
    void handle(rpc::Message m, std::shared_ptr<ReplyChannel> reply, RequestContext ctx);
    // A 2025-03-26 batch: every element handled, the answers collected into one array.
    void handle_batch(std::vector<rpc::Entry> entries, std::function<void(std::string body, int status)> done,
                      RequestContext ctx);

    // The standalone server→client stream (GET /mcp, GET /sse).
    bool has_stream() const;  // connected now
    // A fresh standalone stream on this connection (the previous one, if any, ends).
    void attach_stream(std::shared_ptr<http::Stream> stream, Framing framing = Framing::sse);
    void detach_stream(const std::shared_ptr<http::Stream>& stream);
    // A message on the standalone stream; true when it went out on a connection. A Streamable
    // HTTP session's stream that lost its connection keeps it for a resume (and says false).
    bool send(const std::string& message);
    void keepalive();

    // Streamable HTTP: the session's resumable streams (null for the other transports), and how a
    // POST of this session makes its event stream resumable.
    const std::shared_ptr<Streams>& streams() const { return streams_; }
    Resumption resumption() const;

    // Every request resets the idle timer. A session is *provisional* after its first message
    // (initialize; for HTTP+SSE the GET that opened it): it ends after the grace
    // (Config::session_grace) unless another message or a GET stream follows, which
    // *establishes* it (then the idle timeout applies). Local-socket sessions are established
    // from the start: their connection is their lifetime.
    void touch();
    void establish();  // a GET stream opened: the client means to stay
    bool established() const { return established_; }
    // May give way to a new session at the cap: no request in flight or parked, no connected
    // stream (a local connection, an HTTP+SSE or GET stream all count as one).
    bool evictable() const;
    std::chrono::steady_clock::time_point last_used() const { return last_used_; }
    void close(std::string_view reason);
    // An instance is going away (stopped, updated, deleted): close its link, answer its calls.
    void close_provider(const std::string& uid, std::string_view reason);
    // Drop every cached list; with `tell_client`, send list_changed for tools, prompts, resources.
    void invalidate(bool tell_client);
    // Providers appeared or went away: send list_changed for tools, prompts, resources.
    void tell_lists_changed();

    // channel_tap.cpp — IM channels into this session (claude/channel, ADR 0041).
    // The channels this session listens to (empty: none, or the daemon has no channel core).
    const std::vector<std::string>& channels() const;
    // A channel owner's message: a notifications/claude/channel to the client.
    void channel_message(const ChannelMessage& m);
    // notifications/claude/channel/permission_request from the client: asked of the owner.
    void permission_request(const boost::json::object& params);

    // LinkEvents
    void link_notification(Link& link, Call* related, std::string json) override;
    void link_request(Link& link, Call* related, std::uint64_t token, std::string json) override;

private:
    friend class Catalog;
    friend class Builtins;  // coffer__* tools (builtin_search.cpp)

    // dispatch.cpp
    void on_request(const std::shared_ptr<Exchange>& ex, rpc::Message& m, const RequestContext& ctx);
    void initialize(const std::shared_ptr<Exchange>& ex, const boost::json::object& params);
    void route(const std::shared_ptr<Exchange>& ex, const resource::Provider& p, const std::string& method,
               boost::json::object params);
    void route_named(const std::shared_ptr<Exchange>& ex, const std::string& method, boost::json::object params,
                     const char* what);
    void route_uri(const std::shared_ptr<Exchange>& ex, const std::string& method, boost::json::object params);
    void route_completion(const std::shared_ptr<Exchange>& ex, boost::json::object params);
    // tasks.cpp — tasks/get|result|cancel by the exposed id, tasks/list across upstreams, a created
    // task waited for on behalf of a client without tasks, status notifications.
    void route_task(const std::shared_ptr<Exchange>& ex, const std::string& method, const boost::json::object& params);
    void list_tasks(const std::shared_ptr<Exchange>& ex);
    bool task_created(const std::shared_ptr<Exchange>& ex, const std::string& result);
    void task_status(Link& link, boost::json::object params);
    void remember_task(const std::string& server, const std::string& result);  // a task created here
    void cancel_upstream_task(const std::shared_ptr<Exchange>& ex);             // emulated: tasks/cancel
    // 2026-07-28: the Mcp-Param-* headers of a tools/call agree with its arguments (false: refused).
    bool param_headers_match(const std::shared_ptr<Exchange>& ex, const resource::Provider& p,
                             const std::string& exposed, const boost::json::object& params);
    void listen(const std::shared_ptr<Exchange>& ex, const boost::json::object& params);
    void complete(const std::shared_ptr<Exchange>& ex, const std::string& result, const std::string& error);
    void send(const std::shared_ptr<Exchange>& ex, Link& link, const std::string& method, const std::string& params);
    // retry.cpp: sends a tools/call once more when its upstream exited and the tool is safe to repeat.
    bool retry_after_exit(const std::shared_ptr<Exchange>& ex, const std::string& error);
    void answer(const std::shared_ptr<Exchange>& ex, const std::string& message, int http_status = 200);
    void fail(const std::shared_ptr<Exchange>& ex, int code, std::string_view message,
              const boost::json::value& data = nullptr, int http_status = 200);

    // relay.cpp
    void on_notification(rpc::Message& m);
    void on_response(rpc::Message& m);
    void cancel(const std::shared_ptr<Exchange>& ex);
    void to_client(const std::shared_ptr<Exchange>& related, const std::string& message);
    void list_changed(Link& link, const std::string& method);
    void notify_list_changed(const std::string& method);  // to the client (stream or listeners)
    void resource_updated(Link& link, boost::json::object params);
    void relay_request(Link& link, const std::shared_ptr<Exchange>& related, std::uint64_t token,
                       boost::json::object request);
    void ask_in_result(Link& link, const std::shared_ptr<Exchange>& ex, std::uint64_t token,
                       boost::json::object request);
    bool resume(const std::shared_ptr<Exchange>& retry, const boost::json::object& params);

    // curate.cpp — curation refusals and the invocation log
    bool refuse_disabled(const std::shared_ptr<Exchange>& ex, const resource::Provider& p, const std::string& method,
                         std::string_view original, const std::string& exposed);
    void begin_invocation(const std::shared_ptr<Exchange>& ex, const std::string& server, const std::string& target);
    void end_invocation(const std::shared_ptr<Exchange>& ex, std::string_view outcome, std::optional<std::int64_t> code);
    void end_invocation(const std::shared_ptr<Exchange>& ex, const std::string& result, const std::string& error);

    // The session's link to a provider, opened on first use (or again after a refused open);
    // null only when the provider is gone.
    std::shared_ptr<Link> link_for(const resource::Provider& p, std::string& error);
    Visible visible() const;
    std::shared_ptr<Exchange> track(rpc::Message& m, std::shared_ptr<ReplyChannel> reply, const RequestContext& ctx);
    void untrack(const std::shared_ptr<Exchange>& ex);
    void arm_idle();

    // channel_tap.cpp
    void listen_channels();
    void channel_reply(const std::shared_ptr<Exchange>& ex, const boost::json::object& arguments);

    Env& env_;
    std::string id_;
    Transport transport_;
    Version version_;
    Identity who_;
    bool initialized_ = false;
    bool closed_ = false;
    bool established_ = false;  // see touch()
    bool heard_ = false;        // a message was received
    std::chrono::steady_clock::time_point last_used_;
    int log_level_ = 0;  // legacy: logging/setLevel rank (debug = 0: everything)
    std::uint64_t seq_ = 0;
    boost::asio::steady_timer idle_;
    std::map<std::string, std::shared_ptr<Link>> links_;          // by provider uid
    std::map<std::string, std::shared_ptr<Exchange>> exchanges_;  // by request id key
    std::map<std::string, std::weak_ptr<Exchange>> progress_;     // by progress token key
    struct Outbound {
        std::weak_ptr<Link> link;
        std::uint64_t token = 0;
        std::weak_ptr<Exchange> related;
    };
    std::map<std::string, Outbound> outbound_;                    // server→client requests by our id key
    std::map<std::string, std::shared_ptr<Exchange>> parked_;     // 2026-07-28: by requestState
    struct Listen {
        std::shared_ptr<Exchange> ex;
        bool tools = false, prompts = false, resources = false;
        std::set<std::string> uris;
    };
    std::map<std::string, Listen> listens_;                       // 2026-07-28 subscriptions/listen
    std::set<std::string> subscribed_;                            // resources/subscribe URIs (legacy)
    std::set<std::string> tasks_;                                 // exposed ids of tasks created in this session
    std::shared_ptr<Streams> streams_;       // Streamable HTTP: every resumable stream, by number
    std::shared_ptr<EventStream> stream_;    // the standalone stream
    std::shared_ptr<SearchMemo> search_memo_;                     // coffer__search_tools' last index
    std::shared_ptr<ChannelListener> channel_tap_;                // while it listens to channels
};

}  // namespace coffer::mcp
