// The shim's core, one per stdio connection: client messages from stdio go to the daemon's MCP
// endpoint (its local socket, or POSTs to /mcp over Streamable HTTP); responses and
// server-initiated messages (JSON bodies, SSE streams, the GET stream, lines on the socket) go
// to stdout. It owns the session (Mcp-Session-Id, negotiated protocol version), detect-or-spawn
// of the daemon, and the failure model (docs/mcp-gateway.md):
//  - a request the daemon may have seen is never sent twice; when the daemon goes away it is
//    answered with a JSON-RPC error at once (a broken connection or, at the latest, the pid
//    watchdog's next tick, 250 ms);
//  - a message the daemon cannot have seen (connect/write failed, 404 for an expired session,
//    401 after a token rotation) is queued and sent again once the daemon is back (found or
//    respawned) and the session re-initialized with the client's original initialize params.
//
// One class, its members defined by role in one file each (as host/mcp/front_*.cpp split the
// gateway); the sections below name the file. Everything runs on one io_context thread.
#pragma once

#include "shim/client_message.hpp"
#include "shim/http.hpp"
#include "shim/local_link.hpp"
#include "shim/log.hpp"
#include "shim/options.hpp"
#include "shim/outbound.hpp"
#include "shim/stdio.hpp"
#include "shim/unanswered.hpp"

#include "client/locator.hpp"

#include <coffer/sse.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace coffer::shim {

class PostSink;

class Forwarder : public std::enable_shared_from_this<Forwarder> {
public:
    // forwarder.cpp
    Forwarder(boost::asio::io_context& io, Options options, int in_fd, int out_fd, std::function<void(int)> on_exit);
    void start();
    void terminate(const std::string& why) { finish(why, true); }

    // Called by the HTTP response sinks (http_sinks.hpp).
    void on_server_message(std::string text, PostSink* origin);                 // session.cpp
    void post_done(PostSink& sink, Failure failure, const std::string& what);   // http_post.cpp
    void get_head(const ResponseHead& head, std::uint64_t serial);              // http_get.cpp
    void get_event(const SseEvent& ev, std::uint64_t serial);                   // http_get.cpp
    void get_done(Failure failure, const std::string& what, std::uint64_t serial); // http_get.cpp
    void probe_done(bool healthy, const std::string& why);                      // liveness.cpp
    std::uint64_t generation() const { return generation_; }
    const Log& log() const { return log_; }

private:
    // client_side.cpp — the stdio side: client lines in, flow control on what goes out.
    void on_client_line(std::string line);
    bool refuse_unusable_id(const Peek& p);
    Outbound to_outbound(std::string line, const Peek& p);
    bool cancel_stateless(const Outbound& m);
    void on_oversize(std::size_t bytes);
    void on_client_eof();
    void on_stdout_failed(const std::string& why);
    void emit(std::string line);
    void count_answer(std::string_view id);
    void count_request(const Peek& p, std::size_t bytes, std::string_view body);
    void reply_error(const Outbound& m, int code, const std::string& message, boost::json::value data = nullptr);

    // forwarder.cpp — the coordinator: the queue of client messages and which transport takes one.
    void pump();
    void send(Outbound m);
    void send_again(Outbound m, bool internal);  // it never ran: first in line again (or re-initialize)
    void fail_queue(int code, const std::string& message);
    bool stateless_mode() const {
        return stateless_ || (!protocol_version_.empty() && protocol_version_ >= kFirstStatelessVersion);
    }

    // http_post.cpp — a message POSTed to /mcp, and what became of the exchange.
    struct PostEnd;
    void send_http(Outbound m);
    void begin_client_initialize();
    OutgoingRequest post_request(const Outbound& m, bool with_session) const;
    HeaderList base_headers(bool with_session) const;
    void uncount(PostEnd& e);
    bool refused_by_live_daemon(PostEnd& e);
    void requeue_unsent(PostEnd& e);
    bool retry_refused_session(PostEnd& e);
    void answer_broken(PostEnd& e);

    // http_answer.cpp — reading a POST's HTTP answer.
    bool read_answer(PostEnd& e);
    bool read_success(PostEnd& e);
    void resume_stream(PostSink& s);
    void read_http_error(PostEnd& e);

    // http_get.cpp — the GET stream (server-initiated messages outside any request).
    void open_get();
    void stop_get();
    void schedule_get(std::chrono::milliseconds delay);

    // local_transport.cpp — the daemon's local socket (ADR 0019), used when the daemon offers it
    // unless --transport http: one connection is one session, order on it replaces the handshake
    // gate, and its end tells what HTTP needs a watchdog and probes for.
    bool wants_local() const;
    bool via_local(const Outbound& m) const { return local_.link && local_.link->ready() && m.extra.empty(); }
    void open_local();
    void local_ready();
    void send_local(Outbound m);
    bool refuse_locally(const Outbound& m);
    void local_message(std::string text);
    bool local_reinit_answered(std::string_view id, const std::string& text);
    void local_closed(LocalLink::Refusal refusal, const std::string& why);
    void drop_local(const std::string& why);
    // The request written to the socket under this id (as written, or the same JSON value).
    std::unordered_map<std::string, Outbound>::iterator find_local(std::string_view raw_id);

    // discovery.cpp — finding (or starting) the daemon, and losing it.
    void locate();
    void on_located(core::Result<client::Located> located);
    void locate_failed(const std::string& why);
    void link_lost(const std::string& why);

    // liveness.cpp — is the daemon still there? The pid watchdog and the status probe.
    void arm_watchdog();
    void connection_trouble();

    // session.cpp — the session: the initialize result, re-initializing a lost session.
    bool capture_initialize_result(const std::string& text, bool internal);  // true: it succeeded
    void mark_answered(std::string_view id);
    void session_lost();
    void start_reinit();
    void reinit_failed(const std::string& why);
    void after_reinit();
    bool handshake_done(PostEnd& e);
    bool reinit_answered(const std::string& session);

    // ending.cpp — stdin closed, a signal, or stdout failed.
    void maybe_finish();
    void finish(const std::string& why, bool immediate);
    void delete_session();
    void exit_now(int code);

    boost::asio::io_context& io_;
    Options opts_;
    Log log_;
    Identity identity_;
    HttpClient http_;
    std::function<void(int)> on_exit_;
    std::filesystem::path vault_;

    // The client (client_side.cpp).
    LineWriter out_;
    int in_fd_;
    std::unique_ptr<LineReader> reader_;
    bool stdin_paused_ = false;  // the client is not reading its answers (kStdoutBacklog)
    Unanswered unanswered_;      // its requests the daemon has not answered yet
    bool waiting_for_answers_ = false;  // reading paused until unanswered_ is under its low mark

    // The daemon (discovery.cpp, liveness.cpp).
    enum class Link { down, locating, up } link_ = Link::down;
    std::uint64_t generation_ = 0; // bumped when the link is lost: late events of old exchanges are ignored
    client::DaemonInfo daemon_;
    std::optional<std::chrono::steady_clock::time_point> locate_failed_at_;
    std::string locate_error_;
    boost::asio::steady_timer watchdog_;
    bool watchdog_armed_ = false;
    bool suspect_ = false; // a connection broke: is the daemon still there? (nothing is sent meanwhile)
    std::uint64_t probe_handle_ = 0;
    boost::asio::steady_timer probe_timer_;

    // The session (session.cpp).
    std::string session_;
    std::string protocol_version_;
    std::optional<std::string> init_params_; // the client's initialize params (with coffer/* _meta)
    bool client_initialized_ = false;
    bool need_reinit_ = false;
    bool gate_ = false; // an initialize (or the initialized notification) is in flight
    bool stateless_ = false;
    ToolHeaders tool_headers_;  // stateless era: x-mcp-header annotations of the tools listed
    int reinit_failures_ = 0;
    int reinit_counter_ = 0;
    bool caps_tools_changed_ = false, caps_resources_changed_ = false, caps_prompts_changed_ = false;

    // Messages waiting to go out, and requests waiting for their answers (forwarder.cpp,
    // http_post.cpp); pending_requests_ counts both transports' requests.
    std::deque<Outbound> queue_;
    int pending_requests_ = 0;
    std::unordered_map<std::string, std::pair<std::uint64_t, std::weak_ptr<PostSink>>> inflight_;

    // The GET stream (http_get.cpp).
    struct GetStream {
        explicit GetStream(boost::asio::io_context& io) : timer(io) {}
        std::uint64_t handle = 0;
        std::uint64_t serial = 0;  // which stream is current (stop_get() makes older ones irrelevant)
        bool disabled = false;     // the daemon offers none (405)
        bool session_gone = false; // it answered 404: the session is gone
        int failures = 0;
        std::string last_event_id;
        boost::asio::steady_timer timer;
    } get_;

    // The local socket (local_transport.cpp).
    struct LocalSide {
        std::unique_ptr<LocalLink> link;
        bool auth_retried = false;
        std::unordered_map<std::string, Outbound> inflight; // requests written to the socket, by raw id
        std::string reinit_id;                              // our re-initialize in flight there
    } local_;

    // Ending (ending.cpp).
    bool closing_ = false; // stdin ended
    bool exiting_ = false;
    bool exit_done_ = false;
    boost::asio::steady_timer exit_timer_;
};

}  // namespace coffer::shim
