// One upstream MCP connection as a JSON-RPC client: starts the transport, finds the server's era
// (`server/discover`: a 2026-07-28 server needs no handshake, every request carries its version
// and the client's capabilities; anything else is a legacy server) and otherwise performs
// `initialize` (newest version the upstream accepts) and `notifications/initialized`, forwards requests with
// fresh ids, completes each with the raw `result` (or `error`) text, relays notifications and
// server-initiated requests to its sink, forwards the client's roots/list_changed, applies the
// per-call timeout and cancels both ways.
// Lives on the runtime's I/O thread: every member function must be called there.
#pragma once

#include "errors.hpp"
#include "stateless.hpp"
#include "start_queue.hpp"
#include "transport.hpp"
#include "upstream.hpp"

#include <coffer/abi.h>
#include <coffer/mcp_revisions.hpp>

#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <optional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::mcp_server {

// Protocol versions offered to upstreams, newest first (the SDK's list of session-based
// revisions); `initialize` offers the first and steps down when the upstream refuses.
inline constexpr const auto& kProtocolVersions = mcp_revision::with_sessions;
bool supported_protocol_version(std::string_view v);

// Where a connection sends what the upstream initiates (the downstream session). Called on the
// I/O thread.
class ConnectionSink {
public:
    virtual ~ConnectionSink() = default;
    virtual void notify(std::string_view notification_json, coffer_call* related) = 0;
    // false when the client cannot take the request (the upstream then gets an error).
    virtual bool request(std::uint64_t token, std::string_view request_json, coffer_call* related) = 0;
};

// Receives exactly one of result / error (raw JSON texts).
using Completion = std::function<void(std::string_view result, std::string_view error)>;

struct CallRequest {
    std::string method;
    std::string params = "{}";       // the raw params object
    Completion done;
    coffer_call* handle = nullptr;   // the host's call (cancel and `related` key), may be null
};

class Connection : public std::enable_shared_from_this<Connection>, private TransportEvents {
public:
    enum class State { idle, starting, ready, closed };

    // `client_capabilities` is the capabilities object offered to the upstream in initialize.
    Connection(std::shared_ptr<Upstream> up, std::shared_ptr<ConnectionSink> sink, std::string client_capabilities);
    ~Connection() override;

    // Queues or sends a request; starts the connection on first use.
    void submit(CallRequest r);
    // The client cancelled this call: tell the upstream, complete the call now.
    void cancel(coffer_call* handle);
    // The client answered a relayed server request.
    void respond(std::uint64_t token, std::string_view result, std::string_view error);
    // A client notification (notifications/roots/list_changed): sent only once the upstream is
    // initialized and only if the client declared the capability it is about; dropped otherwise.
    void notify(std::string_view method, std::string_view params);
    // Fails every pending call with `why` and releases the upstream (kills the child).
    void close(const Failure& why);

    State state() const { return state_; }
    bool usable() const { return state_ != State::closed; }
    // Known once ready.
    const std::string& protocol_version() const { return protocol_version_; }
    const std::string& server_info() const { return server_info_; }    // raw JSON ("" if none)
    const std::string& capabilities() const { return capabilities_; }  // raw JSON ("" if none)
    const std::string& instructions() const { return instructions_; }  // the server's own ("" if none)
    long pid() const { return transport_ ? transport_->pid() : 0; }

private:
    struct Pending {
        std::string method;
        std::string params;       // as sent (token rewritten)
        std::string orig_token;   // the client's progressToken (raw), "" when none
        Completion done;
        coffer_call* handle = nullptr;
        std::chrono::steady_clock::time_point deadline;  // timeout_ms after submission
        bool sent = false;
        // 2026-07-28: the answers to an input_required result, gathered from the client before
        // the request is sent again; how many are still awaited; rounds so far.
        std::map<std::string, std::string> input_answers;
        std::optional<std::string> input_state;
        std::size_t input_waiting = 0;
        int input_rounds = 0;
        bool header_retry = false;  // a HeaderMismatch made us list tools and send it once more
        bool auth_retry = false;    // refused with 401 mid-session: sent once more after a refresh
    };

    void start();
    void open_transport();  // once the start queue lets this start go ahead
    void release_start();   // the start is over (or its slot was held long enough)
    void begin();  // the transport is open: probe the era or initialize
    void send_discover();
    void on_discover(bool is_error, std::string_view payload);
    void fall_back_to_initialize();
    void send_initialize();
    void on_initialize(std::string_view text, bool is_error, std::string_view payload);
    void become_ready();
    // 2026-07-28 (stateless.hpp): requests answered here (the revision has no such method),
    // results that need the client's input, the subscriptions/listen stream.
    bool answer_locally(std::int64_t id);
    bool stateless_result(std::int64_t id, std::string_view result, std::string_view error);
    void ask_input(std::int64_t id, stateless::InputRequired in);
    std::int64_t renumber(std::int64_t id);  // the pending call under a fresh request id
    void drop_input_asks(std::int64_t id);
    void open_listen();
    void listen_lost();
    std::string stateless_message(std::int64_t id, std::string_view method, std::string_view params,
                                  SendOptions& options) const;
    void fail_start(const Failure& f, bool runner_missing, bool count_failure);
    void send_request(std::int64_t id);
    void finish(std::int64_t id, std::string_view result, std::string_view error);
    void fail_all(const Failure& f);
    void timed_out(std::int64_t id);
    void arm_deadline();  // the one timer, at the earliest deadline still pending
    void forget_deadline(const Pending& p, std::int64_t id);
    void send_cancelled(std::int64_t id, std::string_view reason);
    void handle(std::string_view text, std::optional<std::int64_t> context);
    void handle_notification(std::string_view method, std::string_view params, std::optional<std::int64_t> context);
    void handle_server_request(std::string_view id, std::string_view method, std::string_view params,
                               std::optional<std::int64_t> context);
    void answer_upstream(std::string_view id, std::string_view result, std::string_view error);
    coffer_call* related(std::optional<std::int64_t> context) const;
    void set_closed();
    std::string who() const;

    // TransportEvents
    void on_message(std::string_view text, std::optional<std::int64_t> context) override;
    void on_send_failed(std::int64_t id, std::string error) override;
    void on_closed(std::string error, bool runner_missing) override;
    bool awaiting(std::int64_t id) const override;
    void on_unauthorized() override { unauthorized_ = true; }

    std::shared_ptr<Upstream> up_;
    std::shared_ptr<const ServerConfig> cfg_;
    std::shared_ptr<ConnectionSink> sink_;
    std::string client_caps_;
    std::shared_ptr<Transport> transport_;
    State state_ = State::idle;
    bool admitted_ = false, counted_ = false;
    StartQueue::Ticket start_ticket_ = 0;  // a slot of the runtime's start queue, held or waited for
    std::shared_ptr<const ServerConfig> resolved_;  // credentials resolved, until the transport takes it
    bool oauth_refreshed_ = false;                  // a token refresh was tried for this connection
    bool oauth_force_refresh_ = false;              // the upstream refused the token: refresh it anyway
    bool unauthorized_ = false;                     // the transport saw a 401
    // initialize was refused with 401 and a refresh token is stored: drop this attempt (the
    // calls waiting for it keep waiting), refresh, start again. False when there is nothing to try.
    bool retry_with_refreshed_token();
    // This server's OAuth state: a token refreshed moments ago (still on its way to the host's
    // store), else the stored credential; nullopt when it has none for its current URL.
    std::optional<StoredOAuth> stored_oauth() const;
    // A call refused with 401 on a ready connection (its token expired or was revoked since the
    // connection started): the token is refreshed once (one refresh for every call refused
    // meanwhile) and the call sent again. False when there is nothing to try.
    bool resend_after_refresh(std::int64_t id);
    void refreshed(const std::optional<StoredOAuth>& fresh, const std::string& error);
    std::vector<std::int64_t> auth_waiting_;
    std::string stored_token_;  // the access token this connection's requests carry
    bool refreshing_ = false;
    std::shared_ptr<boost::asio::steady_timer> hold_timer_;

    std::int64_t next_id_ = 1;
    std::int64_t init_id_ = 0;
    std::size_t version_index_ = 0;
    std::shared_ptr<boost::asio::steady_timer> init_timer_;
    std::map<std::int64_t, Pending> pending_;
    // Per-call timeouts without a timer per call: deadlines in order, one timer for the earliest.
    // Finished calls leave the set; the timer is only moved when it fires (no system call per call).
    std::set<std::pair<std::chrono::steady_clock::time_point, std::int64_t>> deadlines_;
    std::shared_ptr<boost::asio::steady_timer> deadline_timer_;
    bool deadline_armed_ = false;
    std::vector<std::int64_t> queued_;                      // submitted before ready
    std::map<std::uint64_t, std::string> server_requests_;  // token → upstream request id (raw)

    // The era probe (server/discover) and the stateless mode it may lead to.
    std::int64_t probe_id_ = 0;
    bool probing_ = false;
    int probes_ = 0;
    bool restarted_ = false;  // a stdio child that exited during the probe was started once more
    std::shared_ptr<boost::asio::steady_timer> probe_timer_;
    bool stateless_ = false;
    // input_required answers the client owes: token → (call id, key in inputRequests).
    std::map<std::uint64_t, std::pair<std::int64_t, std::string>> input_asks_;
    // subscriptions/listen: the open one's id (0: none), the resources subscribed through it.
    std::int64_t listen_id_ = 0;
    std::string listen_filter_;
    std::set<std::string> subscriptions_;
    int listen_failures_ = 0;
    std::optional<std::chrono::steady_clock::time_point> listen_acknowledged_;
    bool listen_unsupported_ = false;  // the upstream answered subscriptions/listen with an error
    std::shared_ptr<boost::asio::steady_timer> listen_timer_;

    std::string protocol_version_, server_info_, capabilities_, instructions_;
};

}  // namespace coffer::mcp_server
