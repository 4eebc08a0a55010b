#include "shim/bridge.hpp"

#include "shim/http.hpp"
#include "shim/local_link.hpp"
#include "shim/message.hpp"
#include "shim/stdio.hpp"

#include <coffer/sse.hpp>

#include "client/locator.hpp"
#include "client/process.hpp"
#include "client/vault.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <optional>
#include <thread>
#include <unordered_map>

#include <csignal>
#include <unistd.h>

#ifndef COFFER_VERSION
#define COFFER_VERSION "0.0.0"
#endif

namespace coffer::shim {
namespace net = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kWatchdogPeriod = 250ms;
constexpr auto kDeleteTimeout = 1000ms;
constexpr auto kEofGrace = 120s;           // after stdin closed, how long pending requests may take
constexpr auto kLocateFailureHold = 1000ms; // a failed detect-or-spawn is not retried sooner
constexpr int kMaxReinitFailures = 3;
// Flow control towards the client: while more than this waits to be written to its stdout, no
// more of its requests are read (it is not taking its answers); reading resumes once all is out.
constexpr std::size_t kStdoutBacklog = 8u << 20;
constexpr int kMaxResumes = 3;
constexpr const char* kStatelessVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kFirstStatelessVersion = "2026-07-28";

bool starts_with_ci(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
            return false;
    return true;
}

std::string trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t");
    return std::string(s.substr(b, e - b + 1));
}

// Canonical text of a JSON id (so `1` and `1.0`, or two spellings of a string, compare equal).
std::string canonical(std::string_view raw) {
    boost::system::error_code ec;
    auto v = json::parse(raw, ec);
    return ec ? std::string(raw) : json::serialize(v);
}

// The requestId of a notifications/cancelled message, as JSON text; nullopt when it has none.
std::optional<std::string> cancelled_request_id(std::string_view body) {
    boost::system::error_code ec;
    json::value v = json::parse(body, ec);
    if (ec || !v.is_object()) return std::nullopt;
    auto* pv = v.get_object().if_contains("params");
    auto* rid = pv && pv->is_object() ? pv->get_object().if_contains("requestId") : nullptr;
    if (!rid) return std::nullopt;
    return json::serialize(*rid);
}

class Log {
public:
    explicit Log(bool verbose) : verbose_(verbose) {}
    void note(const std::string& m) const {
        if (verbose_) write(m);
    }
    void warn(const std::string& m) const { write(m); }
    bool verbose() const { return verbose_; }

private:
    static void write(const std::string& m) {
        std::string line = "coffer-mcp-shim: " + m + "\n";
        std::fwrite(line.data(), 1, line.size(), stderr);
    }
    bool verbose_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

enum class Role {
    normal,
    client_initialize,    // the client's initialize: opens the session; later messages wait for it
    client_initialized,   // notifications/initialized: later messages wait for its 202
    internal_initialize,  // the shim re-initializing a lost session with the client's params
    internal_initialized, // … and repeating notifications/initialized
    delete_session,       // DELETE at the end
};

struct Outbound {
    std::string body;
    MsgKind kind = MsgKind::invalid;
    std::string id;     // raw JSON id of a request
    std::string method;
    HeaderList extra;   // per-message headers (stateless-era Mcp-Name, MCP-Protocol-Version)
    Role role = Role::normal;
    int session_retries = 0; // sent again after a 404 (expired session)
    bool auth_retried = false;
};

class PostSink;
class ProbeSink;

class Bridge : public std::enable_shared_from_this<Bridge> {
public:
    Bridge(net::io_context& io, Options options, int in_fd, int out_fd, std::function<void(int)> on_exit)
        : io_(io),
          opts_(std::move(options)),
          log_(opts_.verbose),
          http_(io),
          out_(io, out_fd, [this](const std::string& why) { on_stdout_failed(why); }),
          in_fd_(in_fd),
          on_exit_(std::move(on_exit)),
          watchdog_(io),
          probe_timer_(io),
          get_timer_(io),
          exit_timer_(io) {
        vault_ = opts_.home;  // resolved by main (vault::resolve_home)
        std::error_code ec;
        cwd_ = std::filesystem::current_path(ec).string();
    }

    void start() {
        auto self = shared_from_this();
        reader_ = std::make_unique<LineReader>(
            io_, in_fd_, opts_.max_message,
            LineReader::Handlers{[self](std::string line) { self->on_client_line(std::move(line)); },
                                 [self](std::size_t n) { self->on_oversize(n); },
                                 [self] { self->on_client_eof(); }});
        reader_->start();
        locate(); // early: the daemon is usually ready by the time the client's initialize arrives
    }

    void terminate(const std::string& why) { finish(why, true); }

    // --- used by PostSink / GetSink ----------------------------------------------------------
    void on_server_message(std::string text, PostSink* origin);
    void post_done(PostSink& sink, Failure failure, const std::string& what);
    void get_head(const ResponseHead& head, std::uint64_t serial);
    void get_event(const SseEvent& ev, std::uint64_t serial);
    void get_done(Failure failure, const std::string& what, std::uint64_t serial);
    std::uint64_t generation() const { return generation_; }
    const Log& log() const { return log_; }

private:
    // client side
    void on_client_line(std::string line);
    void on_oversize(std::size_t bytes);
    void on_client_eof();
    void on_stdout_failed(const std::string& why);
    void emit(std::string line);
    void reply_error(const Outbound& m, int code, const std::string& message, json::value data = nullptr);

    // daemon side
    void pump();
    // The local socket (ADR 0019): used when the daemon offers it, unless --transport http.
    bool wants_local() const;
    void open_local();
    void local_ready();
    void local_message(std::string text);
    void local_closed(LocalLink::Refusal refusal, const std::string& why);
    void drop_local(const std::string& why);
    void send_local(Outbound m);
    // The request written to the socket under this id (as written, or the same JSON value).
    std::unordered_map<std::string, Outbound>::iterator find_local(std::string_view raw_id);
    bool via_local(const Outbound& m) const { return local_ && local_->ready() && m.extra.empty(); }
    void send(Outbound m);
    void send_again(Outbound m, bool internal);  // it never ran: first in line again (or re-initialize)
    HeaderList base_headers(bool with_session) const;
    void locate();
    void on_located(core::Result<client::Located> located);
    void link_lost(const std::string& why);
    void session_lost();
    void start_reinit();
    void reinit_failed(const std::string& why);
    void after_reinit();
    void fail_queue(int code, const std::string& message);
    bool capture_initialize_result(const std::string& text, bool internal);  // true: it succeeded
    void arm_watchdog();
    void connection_trouble();
    void probe_done(bool healthy, const std::string& why);
    void open_get();
    void stop_get();
    void schedule_get(std::chrono::milliseconds delay);

    // ending
    void maybe_finish();
    void finish(const std::string& why, bool immediate);
    void exit_now(int code);

    bool stateless_mode() const {
        return stateless_ || (!protocol_version_.empty() && protocol_version_ >= kFirstStatelessVersion);
    }

    net::io_context& io_;
    Options opts_;
    Log log_;
    HttpClient http_;
    LineWriter out_;
    int in_fd_;
    std::unique_ptr<LineReader> reader_;
    bool stdin_paused_ = false;  // the client is not reading its answers (kStdoutBacklog)
    std::function<void(int)> on_exit_;
    std::filesystem::path vault_;
    std::string cwd_;

    enum class Link { down, locating, up } link_ = Link::down;
    std::uint64_t generation_ = 0; // bumped when the link is lost: late events of old exchanges are ignored
    client::DaemonInfo daemon_;
    std::optional<Clock::time_point> locate_failed_at_;
    std::string locate_error_;

    std::string session_;
    std::string protocol_version_;
    std::optional<std::string> init_params_; // the client's initialize params (with coffer/* _meta)
    bool client_initialized_ = false;
    bool need_reinit_ = false;
    bool gate_ = false; // an initialize (or the initialized notification) is in flight
    bool stateless_ = false;
    int reinit_failures_ = 0;
    int reinit_counter_ = 0;
    bool caps_tools_changed_ = false, caps_resources_changed_ = false, caps_prompts_changed_ = false;

    std::unique_ptr<LocalLink> local_;
    bool local_auth_retried_ = false;
    std::unordered_map<std::string, Outbound> local_inflight_; // requests written to the socket, by raw id
    std::string local_reinit_id_;                              // our re-initialize in flight there

    std::deque<Outbound> queue_;
    int pending_requests_ = 0;
    std::unordered_map<std::string, std::pair<std::uint64_t, std::weak_ptr<PostSink>>> inflight_;

    net::steady_timer watchdog_;
    bool watchdog_armed_ = false;
    bool suspect_ = false; // a connection broke: is the daemon still there? (nothing is sent meanwhile)
    std::uint64_t probe_handle_ = 0;
    net::steady_timer probe_timer_;

    std::uint64_t get_handle_ = 0;
    std::uint64_t get_serial_ = 0;
    bool get_disabled_ = false;
    bool get_session_gone_ = false;
    int get_failures_ = 0;
    std::string get_last_event_id_;
    net::steady_timer get_timer_;

    bool closing_ = false; // stdin ended
    bool exiting_ = false;
    bool exit_done_ = false;
    net::steady_timer exit_timer_;

    friend class PostSink;
    friend class ProbeSink;
};

// One POST (or a GET resuming its SSE stream) and what came back.
class PostSink : public ResponseSink, public std::enable_shared_from_this<PostSink> {
public:
    PostSink(std::shared_ptr<Bridge> bridge, Outbound m, bool had_session)
        : bridge(std::move(bridge)), msg(std::move(m)), had_session(had_session), generation(this->bridge->generation()) {}

    void on_head(const ResponseHead& h) override {
        head = h;
        auto ct = h.header("Content-Type").value_or("");
        sse = h.status >= 200 && h.status < 300 && starts_with_ci(trim(ct), "text/event-stream");
        if (auto sid = h.header("Mcp-Session-Id")) session_header = std::string(*sid);
    }

    void on_data(std::string_view bytes) override {
        if (!sse) {
            body.append(bytes);
            return;
        }
        if (overflow) return;  // an event over the limit: the rest of this stream is dropped
        overflow = !parser.feed(bytes, [this](const SseEvent& ev) {
            if (ev.type != "message" || ev.data.empty()) return;
            if (generation != bridge->generation()) return;
            bridge->on_server_message(std::string(ev.data), this);
        });
    }

    void on_end(Failure f, const std::string& what) override { bridge->post_done(*this, f, what); }

    std::shared_ptr<Bridge> bridge;
    Outbound msg;
    bool had_session;
    std::uint64_t generation;
    ResponseHead head;
    bool sse = false;
    std::string body;
    std::string session_header;
    SseParser parser;
    bool overflow = false;
    bool answered = false;
    bool cancelled = false; // the client cancelled it (stateless era): no error reply
    int resumes = 0;
    std::uint64_t handle = 0;
};

class GetSink : public ResponseSink {
public:
    GetSink(std::shared_ptr<Bridge> b, std::uint64_t serial) : bridge(std::move(b)), serial(serial) {}
    void on_head(const ResponseHead& h) override {
        ok = h.status == 200;
        bridge->get_head(h, serial);
    }
    void on_data(std::string_view bytes) override {
        if (!ok || overflow) return;
        overflow = !parser.feed(bytes, [this](const SseEvent& ev) { bridge->get_event(ev, serial); });
    }
    void on_end(Failure f, const std::string& what) override { bridge->get_done(f, what, serial); }
    std::shared_ptr<Bridge> bridge;
    std::uint64_t serial; // which GET stream this is (stop_get() makes older ones irrelevant)
    SseParser parser;
    bool overflow = false;  // an event over the limit: the rest of this stream is dropped
    bool ok = false;
};

// ---------------------------------------------------------------------------------------------
// Client → daemon

void Bridge::emit(std::string line) {
    out_.write(std::move(line));
    if (stdin_paused_ || !reader_ || out_.queued_bytes() <= kStdoutBacklog) return;
    stdin_paused_ = true;
    reader_->pause();
    out_.on_drained([w = weak_from_this()] {
        auto self = w.lock();
        if (!self) return;
        self->stdin_paused_ = false;
        if (self->reader_) self->reader_->resume();
    });
}

void Bridge::on_client_line(std::string line) {
    if (exiting_) return;
    Peek p = peek(line);
    // An id coffer-daemon cannot take is refused here, as the daemon refuses it (-32600, id null),
    // whichever the transport: over HTTP such a message would pass for a notification, whose
    // refusal nobody reads, and the client would wait for an answer that never comes.
    if (p.bad_id || (p.null_id && p.kind == MsgKind::notification)) {
        if (log_.verbose()) log_.note("client → message with an unusable id: answered -32600");
        emit(error_response({}, rpc_error::invalid_request,
                            p.bad_id ? "Invalid Request: id must be a string or an integer"
                                     : "Invalid Request: a request id must not be null"));
        return;
    }
    Outbound m;
    m.kind = p.kind;
    m.id = std::string(p.id);
    m.method = std::string(p.method);

    if (p.kind == MsgKind::request && p.method == "initialize") {
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        if (!ec && v.is_object()) {
            auto& o = v.get_object();
            json::value& params = o["params"];
            if (!params.is_object()) params = json::object();
            json::value& meta = params.get_object()["_meta"];
            if (!meta.is_object()) meta = json::object();
            auto& mo = meta.get_object();
            if (!opts_.agent.empty()) mo["coffer/agent"] = opts_.agent;
            mo["coffer/cwd"] = cwd_;
            init_params_ = json::serialize(params);
            m.body = json::serialize(v);
        } else {
            m.body = std::move(line);
        }
        m.role = Role::client_initialize;
        client_initialized_ = false;
    } else if (p.kind == MsgKind::notification && p.method == "notifications/initialized") {
        client_initialized_ = true;
        m.role = Role::client_initialized;
        m.body = std::move(line);
    } else if ((p.kind == MsgKind::request || p.kind == MsgKind::notification) &&
               line.find(kStatelessVersionKey) != std::string::npos) {
        // A stateless-era (2026-07-28+) message: mirror its metadata into headers and add our
        // identity to its _meta (there is no initialize to carry it).
        // Only params._meta decides: the key may also appear inside arguments of a legacy call.
        boost::system::error_code ec;
        json::value v = json::parse(line, ec);
        json::object* params = nullptr;
        json::object* mo = nullptr;
        if (!ec && v.is_object()) {
            if (auto* pv = v.get_object().if_contains("params"); pv && pv->is_object()) params = &pv->get_object();
        }
        if (params)
            if (auto* meta = params->if_contains("_meta"); meta && meta->is_object())
                if (auto* ver = meta->get_object().if_contains(kStatelessVersionKey); ver && ver->is_string())
                    mo = &meta->get_object();
        if (mo) {
            stateless_ = true;
            m.extra.emplace_back("MCP-Protocol-Version", std::string(mo->at(kStatelessVersionKey).get_string()));
            if (!opts_.agent.empty()) (*mo)["coffer/agent"] = opts_.agent;
            (*mo)["coffer/cwd"] = cwd_;
            for (const char* key : {"name", "uri"}) {
                if (auto* n = params->if_contains(key); n && n->is_string() &&
                    (m.method == "tools/call" || m.method == "resources/read" || m.method == "prompts/get")) {
                    m.extra.emplace_back("Mcp-Name", header_safe_value(n->get_string()));
                    break;
                }
            }
            m.body = json::serialize(v);
        } else {
            m.body = std::move(line);
        }
    } else {
        m.body = std::move(line);
    }

    // In the stateless era a cancellation is closing the request's stream, not a message.
    if (m.kind == MsgKind::notification && m.method == "notifications/cancelled" && stateless_mode()) {
        if (auto rid = cancelled_request_id(m.body)) {
            const std::string& key = *rid;
            std::uint64_t handle = 0;
            for (auto& [id, entry] : inflight_) {
                if (id == key || canonical(id) == key) {
                    if (auto sink = entry.second.lock()) sink->cancelled = true;
                    handle = entry.first;
                    break;
                }
            }
            if (handle) http_.abort(handle, "cancelled by the client");
        }
        return;
    }

    if (log_.verbose())
        log_.note("client → " + (m.method.empty() ? std::string("message") : m.method) +
                  (m.id.empty() ? "" : " id " + m.id));
    queue_.push_back(std::move(m));
    pump();
}

void Bridge::on_oversize(std::size_t bytes) {
    log_.warn("dropped a " + std::to_string(bytes) + "-byte message (limit " + std::to_string(opts_.max_message) +
              " bytes)");
    emit(error_response({}, rpc_error::invalid_request, "message too large (" + std::to_string(bytes) + " bytes; the limit is " +
                                         std::to_string(opts_.max_message) + ")"));
}

void Bridge::on_client_eof() {
    log_.note("stdin closed");
    closing_ = true;
    exit_timer_.expires_after(kEofGrace);
    exit_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec) self->finish("pending requests did not finish after stdin closed", true);
    });
    maybe_finish();
}

void Bridge::on_stdout_failed(const std::string& why) {
    if (exiting_) return;
    finish("stdout failed: " + why, true);
}

void Bridge::reply_error(const Outbound& m, int code, const std::string& message, json::value data) {
    if (m.kind != MsgKind::request) {
        if (m.role != Role::internal_initialize && m.role != Role::internal_initialized)
            log_.note("dropped a " + (m.method.empty() ? std::string("message") : m.method) + ": " + message);
        return;
    }
    emit(error_response(m.id, code, message, data));
}

// ---------------------------------------------------------------------------------------------
// Sending

HeaderList Bridge::base_headers(bool with_session) const {
    HeaderList h;
    h.reserve(8);
    h.emplace_back("Content-Type", "application/json");
    h.emplace_back("Accept", "application/json, text/event-stream");
    h.emplace_back("X-Coffer-Token", daemon_.token);
    if (with_session && !session_.empty()) h.emplace_back("Mcp-Session-Id", session_);
    return h;
}

void Bridge::pump() {
    if (exiting_) return;
    if (link_ == Link::down) {
        if (!queue_.empty()) locate();
        return;
    }
    if (link_ == Link::locating || suspect_) return;
    if (need_reinit_ && !gate_ && !queue_.empty()) {
        start_reinit(); // lazily: only when there is something to send
        return;
    }
    while (!gate_ && !queue_.empty() && link_ == Link::up) {
        Outbound m = std::move(queue_.front());
        queue_.pop_front();
        send(std::move(m));
    }
    maybe_finish();
}

void Bridge::send(Outbound m) {
    if (via_local(m)) return send_local(std::move(m));
    bool internal = m.role == Role::internal_initialize || m.role == Role::internal_initialized;
    if (m.role == Role::client_initialize) {
        if (!session_.empty()) {
            // A second initialize on one stdio connection: the old session ends.
            OutgoingRequest del{"DELETE", "/mcp", base_headers(true), {}};
            http_.start(std::move(del), std::make_shared<PostSink>(shared_from_this(), Outbound{}, true));
        }
        stop_get();
        session_.clear();
        need_reinit_ = false;
        gate_ = true;
    }
    if (m.role == Role::client_initialized || internal) gate_ = true;

    bool with_session = m.role != Role::client_initialize && m.role != Role::internal_initialize;
    OutgoingRequest req;
    req.headers = base_headers(with_session);
    bool has_version_header = false;
    for (auto& h : m.extra) {
        if (h.first == "MCP-Protocol-Version") has_version_header = true;
        req.headers.push_back(h);
    }
    if (!has_version_header && with_session && !protocol_version_.empty())
        req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    if (!m.method.empty()) req.headers.emplace_back("Mcp-Method", header_safe_value(m.method));
    req.body = m.body;

    if (m.kind == MsgKind::request && !internal) {
        ++pending_requests_;
        arm_watchdog();
    }
    bool had_session = with_session && !session_.empty();
    bool track = m.kind == MsgKind::request && !internal;
    auto sink = std::make_shared<PostSink>(shared_from_this(), std::move(m), had_session);
    sink->handle = http_.start(std::move(req), sink);
    if (track) inflight_[sink->msg.id] = {sink->handle, sink};
}

// A message the daemon never took: the client's goes back to the front of the queue; our own
// re-initialization is done again as a whole. Either way the handshake gate closes until then.
void Bridge::send_again(Outbound m, bool internal) {
    if (internal || m.role == Role::client_initialize || m.role == Role::client_initialized) gate_ = false;
    if (internal)
        need_reinit_ = true;
    else
        queue_.push_front(std::move(m));
}

// ---------------------------------------------------------------------------------------------
// Daemon → client

void Bridge::on_server_message(std::string text, PostSink* origin) {
    if (exiting_ && !origin) return;
    Peek p = peek(text);
    if (p.kind == MsgKind::response) {
        if (origin && origin->msg.kind == MsgKind::request) {
            std::string_view mine = origin->msg.id;
            if (p.id == mine || canonical(p.id) == canonical(mine)) {
                origin->answered = true;
                if (origin->msg.role == Role::client_initialize) capture_initialize_result(text, false);
                if (origin->msg.role == Role::internal_initialize) {
                    capture_initialize_result(text, true);
                    return; // the client never asked for this one
                }
            }
        } else if (!p.id.empty()) {
            // A response on the GET stream (a resumed stream): whose is it?
            std::string key = canonical(p.id);
            for (auto& [id, entry] : inflight_) {
                if (id == p.id || canonical(id) == key) {
                    if (auto sink = entry.second.lock()) sink->answered = true;
                    break;
                }
            }
        }
    }
    make_one_line(text);
    emit(std::move(text));
}

bool Bridge::capture_initialize_result(const std::string& text, bool internal) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_object()) return false;
    const auto* result = v.get_object().if_contains("result");
    if (!result || !result->is_object()) {
        if (!internal) init_params_.reset(); // the client's initialize failed: nothing to repeat
        return false;
    }
    const auto& r = result->get_object();
    if (auto* pv = r.if_contains("protocolVersion"); pv && pv->is_string()) protocol_version_ = std::string(pv->get_string());
    caps_tools_changed_ = caps_resources_changed_ = caps_prompts_changed_ = false;
    if (auto* caps = r.if_contains("capabilities"); caps && caps->is_object()) {
        auto flag = [&](const char* cap) {
            if (auto* c = caps->get_object().if_contains(cap); c && c->is_object())
                if (auto* lc = c->get_object().if_contains("listChanged"); lc && lc->is_bool()) return lc->get_bool();
            return false;
        };
        caps_tools_changed_ = flag("tools");
        caps_resources_changed_ = flag("resources");
        caps_prompts_changed_ = flag("prompts");
    }
    return true;
}

void Bridge::post_done(PostSink& s, Failure f, const std::string& what) {
    Outbound& m = s.msg;
    bool is_request = m.kind == MsgKind::request;
    bool internal = m.role == Role::internal_initialize || m.role == Role::internal_initialized;
    bool counted = is_request && !internal && m.role != Role::delete_session;
    if (is_request) {
        auto it = inflight_.find(m.id);
        if (it != inflight_.end() && it->second.first == s.handle) inflight_.erase(it);
    }
    auto done_counting = [&] {
        if (counted) {
            counted = false;
            --pending_requests_;
        }
    };
    if (m.role == Role::delete_session) {
        exit_now(0);
        return;
    }
    if (s.cancelled) { // the client cancelled it and expects no answer
        done_counting();
        pump();
        return;
    }
    if (m.kind == MsgKind::invalid && m.body.empty()) return; // a fire-and-forget DELETE

    const bool stale = s.generation != generation_;

    // A write that failed: the daemon did not take the request. A live daemon closed the
    // connection on purpose (sending it again would not help); a dead one is replaced and the
    // request sent again (it cannot have run).
    if (f == Failure::refused && !exiting_) {
        if (!stale && client::process_alive(daemon_.pid)) {
            done_counting();
            reply_error(m, rpc_error::bad_gateway, "coffer-daemon closed the connection before taking the request (" + what + ")");
            if (m.role == Role::client_initialize || m.role == Role::client_initialized || internal) gate_ = false;
            if (internal) reinit_failed(what);
            pump();
            return;
        }
        f = Failure::not_sent;
    }

    // --- the request never reached the daemon: send it again once the daemon is back ---------
    if (f == Failure::not_sent && !exiting_) {
        done_counting();
        log_.note("could not send " + (m.method.empty() ? std::string("a message") : m.method) + " (" + what +
                  "); queued until the daemon is back");
        send_again(std::move(m), internal);
        if (!stale) link_lost("cannot reach coffer-daemon on port " + std::to_string(http_.port()) + ": " + what);
        else pump();
        return;
    }

    if (f == Failure::none) {
        int status = s.head.status;
        // Expired session (the daemon's idle timeout, or it restarted): it never ran this.
        if (status == 404 && s.had_session && !internal && m.session_retries < 2 && !exiting_) {
            done_counting();
            ++m.session_retries;
            if (m.role == Role::client_initialized) gate_ = false;
            queue_.push_front(std::move(m));
            if (!stale) session_lost();
            pump();
            return;
        }
        // Token rotated meanwhile: read daemon.json again and retry once.
        if (status == 401 && !m.auth_retried && !exiting_) {
            auto fresh = client::read_daemon_info(vault_);
            if (fresh && fresh->token != daemon_.token) {
                done_counting();
                daemon_.token = fresh->token;
                m.auth_retried = true;
                send_again(std::move(m), internal);
                pump();
                return;
            }
        }
        if (status >= 200 && status < 300) {
            if (!s.sse && !s.body.empty() && s.body.find_first_not_of(" \t\r\n") != std::string::npos) {
                on_server_message(std::move(s.body), &s);
            } else if (s.sse && is_request && !s.answered && !s.parser.last_event_id().empty() &&
                       s.resumes < kMaxResumes && !stale && !exiting_) {
                // The daemon closed the stream before the response: resume it (GET + Last-Event-ID).
                auto next = std::make_shared<PostSink>(shared_from_this(), std::move(m), s.had_session);
                next->resumes = s.resumes + 1;
                next->generation = s.generation;
                OutgoingRequest req{"GET", "/mcp", base_headers(true), {}};
                req.headers.emplace_back("Last-Event-ID", s.parser.last_event_id());
                if (!protocol_version_.empty()) req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
                long delay = s.parser.retry_ms().value_or(0);
                auto self = shared_from_this();
                auto t = std::make_shared<net::steady_timer>(io_, std::chrono::milliseconds(delay));
                t->async_wait([self, t, next, req = std::move(req)](boost::system::error_code) mutable {
                    next->handle = self->http_.start(std::move(req), next);
                    if (!next->msg.id.empty()) self->inflight_[next->msg.id] = {next->handle, next};
                });
                return; // still pending
            }
            if (is_request && !s.answered && !internal) {
                done_counting();
                reply_error(m, rpc_error::bad_gateway,
                            s.sse ? "coffer-daemon ended the response stream without a response"
                                  : "coffer-daemon answered HTTP " + std::to_string(status) + " without a response");
            }
        } else {
            // An HTTP error. Prefer the daemon's own JSON-RPC error; otherwise make one.
            Peek bp = peek(s.body);
            bool unknown_shape = m.kind == MsgKind::invalid || m.kind == MsgKind::batch;
            if (internal) {
                // handled below
            } else if ((is_request && bp.kind == MsgKind::response && !bp.id.empty()) ||
                       (unknown_shape && bp.kind == MsgKind::response)) {
                on_server_message(std::move(s.body), &s);
            } else if (is_request || unknown_shape) {
                int code = rpc_error::bad_gateway;
                std::string message = "coffer-daemon answered HTTP " + std::to_string(status);
                json::object data;
                data["http_status"] = status;
                boost::system::error_code ec;
                json::value v = json::parse(s.body, ec);
                if (!ec && v.is_object()) {
                    const auto& o = v.get_object();
                    if (auto* e = o.if_contains("error"); e && e->is_object()) {
                        const auto& eo = e->get_object();
                        if (auto* c = eo.if_contains("code"); c && c->is_int64()) code = static_cast<int>(c->get_int64());
                        else if (c && c->is_string()) data["coffer_code"] = c->get_string();
                        if (auto* msg = eo.if_contains("message"); msg && msg->is_string())
                            message = std::string(msg->get_string());
                        if (auto* d = eo.if_contains("data")) data["detail"] = *d;
                    }
                }
                if (code == rpc_error::bad_gateway && (status == 400 || status == 413 || status == 415 || status == 406))
                    code = rpc_error::invalid_request;
                done_counting();
                if (is_request) reply_error(m, code, message, std::move(data));
                else emit(error_response({}, code, message, std::move(data)));
                s.answered = true;
            } else {
                log_.warn("coffer-daemon refused " + (m.method.empty() ? std::string("a message") : m.method) +
                          ": HTTP " + std::to_string(status) + " " + s.body.substr(0, 300));
            }
        }
    } else if (f == Failure::interrupted || f == Failure::aborted) {
        if (is_request && !s.answered && !internal && !s.cancelled) {
            done_counting();
            reply_error(m, rpc_error::connection_lost,
                        "coffer-daemon connection lost while this request was pending (" + what +
                            "); it may or may not have run, and is not retried");
        }
        if (f == Failure::interrupted && !stale && !exiting_) {
            // Is the daemon still there? Nothing more is sent until that is known.
            connection_trouble();
        }
    }
    done_counting();

    // Role-specific follow-up.
    switch (m.role) {
    case Role::client_initialize: {
        bool ok = f == Failure::none && s.head.status >= 200 && s.head.status < 300 && s.answered && init_params_;
        if (!ok) init_params_.reset();
        if (!stale) {
            if (ok) {
                session_ = s.session_header;
                reinit_failures_ = 0;
                log_.note("session " + (session_.empty() ? std::string("(none)") : session_) + ", protocol " +
                          protocol_version_);
            }
            gate_ = false;
        }
        break;
    }
    case Role::client_initialized:
        if (!stale) {
            gate_ = false;
            if (f == Failure::none) open_get();
        }
        break;
    case Role::internal_initialize:
        if (stale) break;
        if (f == Failure::none && s.answered && s.head.status >= 200 && s.head.status < 300 && init_params_) {
            session_ = s.session_header;
            if (client_initialized_) {
                Outbound n;
                n.kind = MsgKind::notification;
                n.method = "notifications/initialized";
                n.body = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";
                n.role = Role::internal_initialized;
                gate_ = false; // send() sets it again
                send(std::move(n));
                return;
            }
            gate_ = false;
            after_reinit();
        } else if (f != Failure::aborted) {
            gate_ = false;
            reinit_failed(s.head.status ? "HTTP " + std::to_string(s.head.status) : what);
        }
        break;
    case Role::internal_initialized:
        if (stale) break;
        gate_ = false;
        if (f == Failure::none && s.head.status >= 200 && s.head.status < 300) after_reinit();
        else if (f != Failure::aborted) reinit_failed(s.head.status ? "HTTP " + std::to_string(s.head.status) : what);
        break;
    default:
        break;
    }
    pump();
}

// ---------------------------------------------------------------------------------------------
// The local socket: one connection is one session; order on the stream replaces the HTTP path's
// handshake gate, and the connection ending tells what HTTP needed a watchdog and probes for.

bool Bridge::wants_local() const {
    if (opts_.transport == Options::Transport::http || stateless_) return false;
    return opts_.transport == Options::Transport::local || !daemon_.mcp_socket.empty();
}

void Bridge::open_local() {
    link_ = Link::locating;
    local_ = std::make_unique<LocalLink>(
        io_, daemon_.mcp_socket, daemon_.token, opts_.max_message,
        LocalLink::Handlers{[this] { local_ready(); }, [this](std::string text) { local_message(std::move(text)); },
                            [this](LocalLink::Refusal r, const std::string& why) { local_closed(r, why); }});
    local_->start();
}

void Bridge::local_ready() {
    log_.note("using the daemon's local socket " + daemon_.mcp_socket);
    link_ = Link::up;
    local_auth_retried_ = false;
    // A new connection is a new session: open it again for the client, unless the client's own
    // initialize is still waiting to go out.
    bool client_init_queued = std::any_of(queue_.begin(), queue_.end(),
                                          [](const Outbound& m) { return m.role == Role::client_initialize; });
    need_reinit_ = init_params_.has_value() && !client_init_queued;
    pump();
}

void Bridge::send_local(Outbound m) {
    if (m.role == Role::internal_initialize) {
        gate_ = true;  // nothing else goes out until we know the session is back
        local_reinit_id_ = m.id;
        return local_->send(std::move(m.body));
    }
    if (auto limit = local_->max_message(); limit && m.body.size() > limit) {
        // The daemon would drop it unread; answer with the request's own id instead.
        return reply_error(m, rpc_error::invalid_request,
                           "Invalid Request: message too large (" + std::to_string(m.body.size()) +
                               " bytes; coffer-daemon takes at most " + std::to_string(limit) + ")");
    }
    if (m.kind == MsgKind::request) {
        // What the daemon could not read it answers with id null, which matches no request here:
        // refuse such a message ourselves, with its own id (the daemon's checks: JSON syntax,
        // UTF-8, nesting depth 64).
        unsigned char scratch[8192];
        json::monotonic_resource mr(scratch, sizeof scratch);
        json::parse_options opt;
        opt.max_depth = 64;
        boost::system::error_code ec;
        json::parse(m.body, ec, &mr, opt);
        if (ec) return reply_error(m, jsonrpc::code::parse_error, "Parse error: " + ec.message());
        if (local_inflight_.count(m.id))
            return reply_error(m, rpc_error::invalid_request, "Invalid Request: a request with this id is already in progress");
    }
    if (m.kind == MsgKind::notification && m.method == "notifications/cancelled") {
        // No answer will come for a cancelled request (the daemon drops it): stop waiting for one.
        if (auto rid = cancelled_request_id(m.body))
            if (auto it = find_local(*rid); it != local_inflight_.end()) {
                local_inflight_.erase(it);
                --pending_requests_;
            }
    }
    if (m.role == Role::client_initialize) need_reinit_ = false;  // the daemon opens a fresh session for it
    std::string body = std::move(m.body);
    if (m.kind == MsgKind::request) {
        ++pending_requests_;
        arm_watchdog();
        m.body.clear();
        local_inflight_[m.id] = std::move(m);
    }
    local_->send(std::move(body));
}

std::unordered_map<std::string, Outbound>::iterator Bridge::find_local(std::string_view raw_id) {
    if (auto it = local_inflight_.find(std::string(raw_id)); it != local_inflight_.end()) return it;
    auto key = canonical(raw_id);
    return std::find_if(local_inflight_.begin(), local_inflight_.end(),
                        [&](const auto& e) { return canonical(e.first) == key; });
}

void Bridge::local_message(std::string text) {
    Peek p = peek(text);
    if (p.kind == MsgKind::response && !p.id.empty()) {
        if (!local_reinit_id_.empty() && (p.id == local_reinit_id_ || canonical(p.id) == canonical(local_reinit_id_))) {
            local_reinit_id_.clear();
            gate_ = false;
            if (capture_initialize_result(text, true)) {
                if (client_initialized_ && local_)
                    local_->send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
                after_reinit();
            } else {
                reinit_failed("the daemon answered the re-initialize with an error");
                pump();
            }
            return;  // the client never asked for this one
        }
        if (auto it = find_local(p.id); it != local_inflight_.end()) {
            if (it->second.role == Role::client_initialize) capture_initialize_result(text, false);
            local_inflight_.erase(it);
            --pending_requests_;
        }
    }
    make_one_line(text);
    emit(std::move(text));
    maybe_finish();
}

void Bridge::local_closed(LocalLink::Refusal refusal, const std::string& why) {
    if (exiting_) return;
    if (link_ == Link::locating) {  // it never came up
        net::post(io_, [l = std::shared_ptr<LocalLink>(std::move(local_))] {});
        if (refusal == LocalLink::Refusal::unauthorized && !local_auth_retried_) {
            // The token may have been rotated since daemon.json was read.
            if (auto fresh = client::read_daemon_info(vault_); fresh && fresh->token != daemon_.token) {
                local_auth_retried_ = true;
                daemon_.token = fresh->token;
                return open_local();
            }
        }
        if (opts_.transport == Options::Transport::local) {
            link_ = Link::down;
            locate_failed_at_ = Clock::now();
            locate_error_ = why;
            log_.warn("cannot use the daemon's local socket: " + why);
            fail_queue(rpc_error::daemon_unavailable, "cannot use coffer-daemon's local socket: " + why);
            return maybe_finish();
        }
        log_.note("local socket unusable (" + why + "); using HTTP on port " + std::to_string(daemon_.port));
        link_ = Link::up;
        return pump();
    }
    link_lost(why);  // answers what was in flight there (drop_local), then reconnects when needed
}

void Bridge::drop_local(const std::string& why) {
    local_reinit_id_.clear();
    if (local_) {
        local_->close();
        net::post(io_, [l = std::shared_ptr<LocalLink>(std::move(local_))] {});
    }
    auto inflight = std::move(local_inflight_);
    local_inflight_.clear();
    for (auto& [id, m] : inflight) {
        --pending_requests_;
        if (m.role == Role::client_initialize) init_params_.reset();  // it failed: nothing to repeat
        reply_error(m, rpc_error::connection_lost,
                    "coffer-daemon connection lost while this request was pending (" + why +
                        "); it may or may not have run, and is not retried");
    }
}

// ---------------------------------------------------------------------------------------------
// Finding the daemon, losing it, re-initializing

void Bridge::locate() {
    if (link_ != Link::down || exiting_) return;
    if (locate_failed_at_ && Clock::now() - *locate_failed_at_ < kLocateFailureHold) {
        // Spawning just failed: do not hammer; answer what is waiting with that failure.
        fail_queue(rpc_error::daemon_unavailable, "cannot reach coffer-daemon: " + locate_error_);
        return;
    }
    link_ = Link::locating;
    client::EnsureOptions eo;
    eo.allow_spawn = !opts_.no_spawn;
    if (opts_.verbose) eo.note = [](const std::string& m) {
        std::string line = "coffer-mcp-shim: " + m + "\n";
        std::fwrite(line.data(), 1, line.size(), stderr);
    };
    auto self = shared_from_this();
    auto guard = net::make_work_guard(io_);
    std::thread([self, guard, vault = vault_, eo]() mutable {
        auto located = client::ensure_daemon(vault, eo);
        net::post(self->io_, [self, located = std::move(located)]() mutable { self->on_located(std::move(located)); });
        guard.reset();
    }).detach();
}

void Bridge::on_located(core::Result<client::Located> located) {
    if (exiting_) return;
    if (!located) {
        link_ = Link::down;
        locate_failed_at_ = Clock::now();
        locate_error_ = located.error().message;
        log_.warn("cannot reach coffer-daemon: " + locate_error_);
        fail_queue(rpc_error::daemon_unavailable, "cannot reach coffer-daemon: " + locate_error_);
        maybe_finish();
        return;
    }
    locate_failed_at_.reset();
    const auto& info = located->daemon.info;
    if (located->spawned) log_.warn("started coffer-daemon (pid " + std::to_string(info.pid) + ", port " + std::to_string(info.port) + ")");
    else log_.note("using coffer-daemon pid " + std::to_string(info.pid) + " on port " + std::to_string(info.port));
    if (daemon_.pid != 0 && daemon_.pid != info.pid) need_reinit_ = init_params_.has_value();
    daemon_ = info;
    http_.set_port(info.port);
    if (wants_local()) return open_local();  // up once the daemon took the token
    link_ = Link::up;
    pump();
}

void Bridge::link_lost(const std::string& why) {
    if (link_ != Link::up) return;
    log_.warn(why);
    link_ = Link::down;
    ++generation_;
    session_.clear();
    need_reinit_ = init_params_.has_value();
    gate_ = false;
    suspect_ = false;
    probe_timer_.cancel();
    probe_handle_ = 0;
    stop_get();
    drop_local(why);
    http_.abort_all(why); // pending requests are answered with errors (post_done)
    pump();
}

void Bridge::session_lost() {
    log_.warn("the daemon no longer knows session " + session_ + "; re-initializing");
    ++generation_;
    session_.clear();
    stop_get();
    need_reinit_ = init_params_.has_value();
    gate_ = false;
}

void Bridge::start_reinit() {
    need_reinit_ = false;
    if (!init_params_) return pump();
    Outbound m;
    m.kind = MsgKind::request;
    m.method = "initialize";
    m.id = "\"coffer-shim-reinit-" + std::to_string(++reinit_counter_) + "\"";
    m.body = R"({"jsonrpc":"2.0","id":)" + m.id + R"(,"method":"initialize","params":)" + *init_params_ + "}";
    m.role = Role::internal_initialize;
    log_.note("re-initializing the session");
    send(std::move(m));
}

void Bridge::reinit_failed(const std::string& why) {
    ++reinit_failures_;
    log_.warn("re-initializing the session failed: " + why);
    if (reinit_failures_ >= kMaxReinitFailures) {
        reinit_failures_ = 0;
        fail_queue(rpc_error::daemon_unavailable, "coffer-daemon refused to re-open the session: " + why);
    }
    need_reinit_ = true;
    if (queue_.empty()) return; // try again with the next message
}

void Bridge::after_reinit() {
    reinit_failures_ = 0;
    log_.warn("session re-established (" + (session_.empty() ? std::string("no session id") : session_) + ")");
    open_get();
    // The new daemon or session may offer a different set: let the client re-list.
    if (client_initialized_) {
        if (caps_tools_changed_) emit(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
        if (caps_resources_changed_) emit(R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})");
        if (caps_prompts_changed_) emit(R"({"jsonrpc":"2.0","method":"notifications/prompts/list_changed"})");
    }
    pump();
}

void Bridge::fail_queue(int code, const std::string& message) {
    auto q = std::move(queue_);
    queue_.clear();
    for (auto& m : q) {
        if (m.role == Role::client_initialize) init_params_.reset();
        reply_error(m, code, message);
    }
}

// A connection to the daemon broke. A dead daemon is dropped at once; a live-looking one (it may
// be in the middle of exiting) is asked for its status on a fresh connection before anything else
// is sent, so no request is written into a daemon that is going away.
class ProbeSink : public ResponseSink {
public:
    explicit ProbeSink(std::shared_ptr<Bridge> b) : bridge(std::move(b)), generation(bridge->generation()) {}
    void on_head(const ResponseHead& h) override { status = h.status; }
    void on_data(std::string_view) override {}
    void on_end(Failure f, const std::string& what) override {
        if (generation != bridge->generation() || f == Failure::aborted) return;
        bridge->probe_done(f == Failure::none && status == 200,
                           f == Failure::none ? "status answered HTTP " + std::to_string(status) : what);
    }
    std::shared_ptr<Bridge> bridge;
    std::uint64_t generation;
    int status = 0;
};

void Bridge::connection_trouble() {
    if (link_ != Link::up || exiting_) return;
    if (!client::process_alive(daemon_.pid)) {
        link_lost("coffer-daemon (pid " + std::to_string(daemon_.pid) + ") exited");
        return;
    }
    if (suspect_) return;
    suspect_ = true;
    http_.close_idle(); // pooled connections may be dead too
    OutgoingRequest req{"GET", "/api/v1/daemon/status", {{"X-Coffer-Token", daemon_.token}, {"Accept", "application/json"}}, {}};
    probe_handle_ = http_.start(std::move(req), std::make_shared<ProbeSink>(shared_from_this()));
    probe_timer_.expires_after(2s);
    probe_timer_.async_wait([self = shared_from_this(), gen = generation_](boost::system::error_code ec) {
        if (ec || gen != self->generation_ || !self->suspect_) return;
        self->probe_done(false, "no answer to a status request within 2 s");
    });
}

void Bridge::probe_done(bool healthy, const std::string& why) {
    if (!suspect_) return;
    suspect_ = false;
    probe_timer_.cancel();
    if (probe_handle_) {
        auto h = probe_handle_;
        probe_handle_ = 0;
        http_.abort(h, "probe over");
    }
    if (healthy) {
        log_.note("coffer-daemon is still there");
        if (!get_handle_) open_get();
        pump();
        return;
    }
    link_lost("coffer-daemon stopped answering (" + why + ")");
}

void Bridge::arm_watchdog() {
    if (watchdog_armed_) return;
    watchdog_armed_ = true;
    watchdog_.expires_after(kWatchdogPeriod);
    watchdog_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        self->watchdog_armed_ = false;
        if (ec || self->exiting_) return;
        if (self->link_ == Link::up && self->daemon_.pid > 0 && !client::process_alive(self->daemon_.pid))
            self->link_lost("coffer-daemon (pid " + std::to_string(self->daemon_.pid) + ") exited");
        if (self->pending_requests_ > 0) self->arm_watchdog();
    });
}

// ---------------------------------------------------------------------------------------------
// The GET stream (server-initiated messages outside any request)

void Bridge::open_get() {
    if (get_handle_ || get_disabled_ || exiting_ || link_ != Link::up || session_.empty() || stateless_mode() ||
        (local_ && local_->ready()))
        return;
    OutgoingRequest req{"GET", "/mcp", {}, {}};
    req.headers.emplace_back("Accept", "text/event-stream");
    req.headers.emplace_back("X-Coffer-Token", daemon_.token);
    req.headers.emplace_back("Mcp-Session-Id", session_);
    if (!protocol_version_.empty()) req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    if (!get_last_event_id_.empty()) req.headers.emplace_back("Last-Event-ID", get_last_event_id_);
    get_handle_ = http_.start(std::move(req), std::make_shared<GetSink>(shared_from_this(), ++get_serial_));
}

void Bridge::stop_get() {
    get_timer_.cancel();
    get_last_event_id_.clear();
    ++get_serial_;
    if (get_handle_) {
        auto h = get_handle_;
        get_handle_ = 0;
        http_.abort(h, "session closed");
    }
}

void Bridge::schedule_get(std::chrono::milliseconds delay) {
    get_timer_.expires_after(delay);
    get_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec) self->open_get();
    });
}

void Bridge::get_head(const ResponseHead& head, std::uint64_t serial) {
    if (serial != get_serial_) return;
    if (head.status == 200) {
        get_failures_ = 0;
    } else if (head.status == 405) {
        log_.note("the daemon offers no GET stream (405)");
        get_disabled_ = true;
    } else if (head.status == 404) {
        get_session_gone_ = true;
    } else if (head.status == 401) {
        if (auto fresh = client::read_daemon_info(vault_); fresh) daemon_.token = fresh->token;
    } else {
        log_.note("GET stream refused: HTTP " + std::to_string(head.status));
    }
}

void Bridge::get_event(const SseEvent& ev, std::uint64_t serial) {
    if (serial != get_serial_ || exiting_) return;
    if (!ev.id.empty()) get_last_event_id_ = std::string(ev.id);
    if (ev.type != "message" || ev.data.empty()) return;
    on_server_message(std::string(ev.data), nullptr);
}

void Bridge::get_done(Failure f, const std::string& what, std::uint64_t serial) {
    if (serial != get_serial_ || f == Failure::aborted) return;
    get_handle_ = 0;
    if (exiting_ || link_ != Link::up || get_disabled_) return;
    if (get_session_gone_) {
        get_session_gone_ = false;
        session_lost(); // re-initialized with the next message
        return;
    }
    if (f != Failure::none && f != Failure::not_sent) {
        connection_trouble();
        if (link_ != Link::up) return;
    }
    if (f == Failure::not_sent) {
        link_lost("cannot reach coffer-daemon: " + what);
        return;
    }
    ++get_failures_;
    auto delay = std::chrono::milliseconds(std::min(5000, 100 << std::min(get_failures_, 6)));
    schedule_get(delay);
}

// ---------------------------------------------------------------------------------------------
// Ending

void Bridge::maybe_finish() {
    if (!closing_ || exiting_) return;
    if (!queue_.empty() || pending_requests_ > 0 || link_ == Link::locating || gate_) return;
    finish("stdin closed", false);
}

void Bridge::finish(const std::string& why, bool immediate) {
    if (exiting_) return;
    exiting_ = true;
    log_.note("exiting: " + why);
    if (reader_) reader_->stop();
    watchdog_.cancel();
    exit_timer_.cancel();
    stop_get();
    if (immediate) {
        // Nobody is waiting for these any more; no error replies.
        queue_.clear();
    }
    if (local_) {
        local_->close();  // the daemon ends the session with the connection
        net::post(io_, [l = std::shared_ptr<LocalLink>(std::move(local_))] {});  // we may be in its callback
    }
    if (link_ == Link::up && !session_.empty() && !stateless_mode()) {
        Outbound del;
        del.role = Role::delete_session;
        OutgoingRequest req{"DELETE", "/mcp", base_headers(true), {}};
        if (!protocol_version_.empty()) req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
        auto sink = std::make_shared<PostSink>(shared_from_this(), std::move(del), true);
        http_.start(std::move(req), sink);
        exit_timer_.expires_after(kDeleteTimeout);
        exit_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->exit_now(0);
        });
        return;
    }
    exit_now(0);
}

void Bridge::exit_now(int code) {
    if (exit_done_) return;
    exit_done_ = true;
    exit_timer_.cancel();
    out_.on_drained([self = shared_from_this(), code] {
        if (self->on_exit_) self->on_exit_(code);
    });
}

// ---------------------------------------------------------------------------------------------

std::shared_ptr<Bridge> make_bridge(net::io_context& io, const Options& options, int in_fd, int out_fd,
                                    std::function<void(int)> on_exit) {
    return std::make_shared<Bridge>(io, options, in_fd, out_fd, std::move(on_exit));
}

void start_bridge(const std::shared_ptr<Bridge>& bridge) { bridge->start(); }

int run(const Options& options) {
    std::signal(SIGPIPE, SIG_IGN);
    net::io_context io(1);
    int exit_code = 0;
    bool exited = false;
    auto bridge = make_bridge(io, options, STDIN_FILENO, STDOUT_FILENO, [&](int code) {
        exit_code = code;
        exited = true;
        io.stop();
    });
    net::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    signals.async_wait([&](boost::system::error_code ec, int sig) {
        if (!ec) bridge->terminate("signal " + std::to_string(sig));
    });
    bridge->start();
    io.run();
    std::fflush(stderr);
    // Detached helpers (a detect-or-spawn in progress, a stdin reader thread) may still run:
    // leave without running destructors under them.
    std::_Exit(exited ? exit_code : 0);
}

}  // namespace coffer::shim
