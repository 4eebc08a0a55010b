// The Forwarder's stdio side: each line from the client becomes an Outbound in the queue (with
// the few changes client_message.hpp makes), answers and errors go to stdout, and the client's
// reading pace limits ours (flow control).
#include "shim/forwarder.hpp"
#include "shim/http_sinks.hpp"
#include "shim/ids.hpp"

namespace coffer::shim {
using namespace std::chrono_literals;

namespace {

constexpr auto kEofGrace = 120s;  // after stdin closed, how long pending requests may take
// Flow control towards the client: while more than this waits to be written to its stdout, no
// more of its requests are read (it is not taking its answers); reading resumes once all is out.
constexpr std::size_t kStdoutBacklog = 8u << 20;

}  // namespace

void Forwarder::emit(std::string line) {
    out_.write(std::move(line));
    if (stdin_paused_ || !reader_ || out_.queued_bytes() <= kStdoutBacklog) return;
    stdin_paused_ = true;
    reader_->pause();
    out_.on_drained([w = weak_from_this()] {
        auto self = w.lock();
        if (!self) return;
        self->stdin_paused_ = false;
        if (self->reader_ && !self->waiting_for_answers_) self->reader_->resume();
    });
}

// The answer to the request with this raw id is on its way to the client (the caller has already
// read the id — no second scan of the message): the request stops counting, and reading resumes
// once the daemon has caught up.
void Forwarder::count_answer(std::string_view id) {
    unanswered_.done(id);
    if (!waiting_for_answers_ || !unanswered_.under_low()) return;
    waiting_for_answers_ = false;
    if (reader_ && !stdin_paused_) reader_->resume();
}

// A line read from the client: a request starts counting, a cancellation ends its request's count;
// past the high mark no more is read until answers come back.
void Forwarder::count_request(const Peek& p, std::size_t bytes, std::string_view body) {
    if (p.kind == MsgKind::request) unanswered_.read(p.id, bytes);
    if (p.kind == MsgKind::notification && p.method == "notifications/cancelled")
        if (auto rid = cancelled_request_id(body)) unanswered_.done(*rid);
    if (waiting_for_answers_ || !reader_ || !unanswered_.over_high()) return;
    waiting_for_answers_ = true;
    if (log_.verbose()) log_.note("reading paused: " + std::to_string(unanswered_.bytes()) + " bytes of requests unanswered");
    reader_->pause();
}

void Forwarder::on_client_line(std::string line) {
    if (exiting_) return;
    Peek p = peek(line);
    if (refuse_unusable_id(p)) return;
    count_request(p, line.size(), line);
    Outbound m = to_outbound(std::move(line), p);
    if (cancel_stateless(m)) return;
    if (log_.verbose()) log_.note("client → " + m.what() + (m.id.empty() ? "" : " id " + m.id));
    queue_.push_back(std::move(m));
    pump();
}

// An id coffer-daemon cannot take is refused here, as the daemon refuses it (invalid request, id
// null), whichever the transport: over HTTP such a message would pass for a notification, whose
// refusal nobody reads, and the client would wait for an answer that never comes.
bool Forwarder::refuse_unusable_id(const Peek& p) {
    if (!p.bad_id && !(p.null_id && p.kind == MsgKind::notification)) return false;
    if (log_.verbose()) log_.note("client → message with an unusable id: answered " + std::to_string(rpc_error::invalid_request));
    emit(error_response({}, rpc_error::invalid_request,
                        p.bad_id ? "Invalid Request: id must be a string or an integer"
                                 : "Invalid Request: a request id must not be null"));
    return true;
}

// The client's line as it goes out; remembers what the session needs from it (the initialize
// params, whether the client finished the handshake, whether it speaks the stateless revision).
Outbound Forwarder::to_outbound(std::string line, const Peek& p) {
    Outbound m;
    m.kind = p.kind;
    m.id = std::string(p.id);
    m.method = std::string(p.method);  // copied: `p` points into `line`
    if (m.kind == MsgKind::request && m.method == "initialize") {
        if (auto init = annotate_initialize(line, identity_)) {
            init_params_ = std::move(init->params);
            m.body = std::move(init->body);
        } else {
            m.body = std::move(line);
        }
        m.role = Role::client_initialize;
        client_initialized_ = false;
    } else if (m.kind == MsgKind::notification && m.method == "notifications/initialized") {
        client_initialized_ = true;
        m.role = Role::client_initialized;
        m.body = std::move(line);
    } else if (m.kind == MsgKind::request || m.kind == MsgKind::notification) {
        if (auto modern = annotate_stateless(line, m.method, identity_, tool_headers_)) {
            stateless_ = true;
            m.extra = std::move(modern->headers);
            m.body = std::move(modern->body);
        } else {
            m.body = std::move(line);
        }
    } else {
        m.body = std::move(line);
    }
    return m;
}

// In the stateless era a cancellation is closing the request's stream, not a message: true when
// `m` was such a cancellation (it is not forwarded).
bool Forwarder::cancel_stateless(const Outbound& m) {
    if (m.kind != MsgKind::notification || m.method != "notifications/cancelled" || !stateless_mode()) return false;
    auto rid = cancelled_request_id(m.body);
    if (!rid) return true;
    const std::string& key = *rid;
    std::uint64_t handle = 0;
    for (auto& [id, entry] : inflight_) {
        if (id == key || canonical_id(id) == key) {
            if (auto sink = entry.second.lock()) sink->cancelled = true;
            handle = entry.first;
            break;
        }
    }
    if (handle) http_.abort(handle, "cancelled by the client");
    return true;
}

void Forwarder::on_oversize(std::size_t bytes) {
    log_.warn("dropped a " + std::to_string(bytes) + "-byte message (limit " + std::to_string(opts_.max_message) +
              " bytes)");
    emit(error_response({}, rpc_error::invalid_request, "message too large (" + std::to_string(bytes) +
                                                            " bytes; the limit is " +
                                                            std::to_string(opts_.max_message) + ")"));
}

void Forwarder::on_client_eof() {
    log_.note("stdin closed");
    closing_ = true;
    exit_timer_.expires_after(kEofGrace);
    exit_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (!ec) self->finish("pending requests did not finish after stdin closed", true);
    });
    maybe_finish();
}

void Forwarder::on_stdout_failed(const std::string& why) {
    if (exiting_) return;
    finish("stdout failed: " + why, true);
}

// An error answer for a request; other messages have nobody to answer, so it is only logged.
void Forwarder::reply_error(const Outbound& m, int code, const std::string& message, boost::json::value data) {
    if (m.kind != MsgKind::request) {
        if (!m.internal()) log_.note("dropped a " + m.what() + ": " + message);
        return;
    }
    count_answer(m.id);
    emit(error_response(m.id, code, message, data));
}

}  // namespace coffer::shim
