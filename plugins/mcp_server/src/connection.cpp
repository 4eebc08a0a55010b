#include "connection.hpp"

#include "credentials.hpp"
#include "oauth.hpp"

#include <coffer/raw_json.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>

namespace coffer::mcp_server {

namespace json = boost::json;

std::shared_ptr<Transport> make_transport(Runtime& rt, std::shared_ptr<const ServerConfig> cfg, TransportEvents& ev);

namespace {

std::atomic<std::uint64_t> g_next_token{1};

std::string quote(std::string_view s) { return json::serialize(json::string(s)); }

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Only the client capabilities a relay can honour go upstream.
std::string relayable_capabilities(const std::string& client_caps) {
    boost::system::error_code ec;
    auto v = json::parse(client_caps, ec);
    json::object out;
    if (!ec && v.is_object())
        for (auto key : {"roots", "sampling", "elicitation"})
            if (auto* c = v.as_object().if_contains(key)) out[key] = *c;
    return json::serialize(out);
}

}  // namespace

bool supported_protocol_version(std::string_view v) {
    for (auto s : kProtocolVersions)
        if (s == v) return true;
    return false;
}

Connection::Connection(std::shared_ptr<Upstream> up, std::shared_ptr<ConnectionSink> sink, std::string client_caps)
    : up_(std::move(up)), sink_(std::move(sink)), client_caps_(relayable_capabilities(client_caps)) {}

Connection::~Connection() {
    release_start();
    if (transport_) transport_->close();
    if (counted_) up_->health().connection_closed();
}

std::string Connection::who() const { return "upstream '" + up_->name() + "'"; }

// ---- requests from the gateway ----

void Connection::submit(CallRequest r) {
    if (state_ == State::closed) {
        r.done({}, Failure{err::kUnavailable, who() + " connection is closed", std::string(reason::closed), {}}.text());
        return;
    }
    if (state_ == State::idle) {
        cfg_ = up_->config();
        up_->add(shared_from_this());
    }
    std::int64_t id = next_id_++;
    Pending p;
    p.method = std::move(r.method);
    p.done = std::move(r.done);
    p.handle = r.handle;
    p.params = r.params.empty() ? std::string("{}") : std::move(r.params);
    // Our own progress token per call, so the upstream's progress maps back to this call and the
    // client's own token (any JSON value) is restored on the way back.
    if (auto meta = raw_json::member(p.params, "_meta"))
        if (auto tok = raw_json::member(*meta, "progressToken")) {
            p.orig_token = std::string(*tok);
            p.params = raw_json::splice(p.params, *tok, std::to_string(id));
        }
    p.deadline = std::chrono::steady_clock::now() + cfg_->timeout;
    deadlines_.emplace(p.deadline, id);
    pending_.emplace(id, std::move(p));
    if (!deadline_armed_) arm_deadline();
    if (state_ == State::ready) {
        send_request(id);
        return;
    }
    queued_.push_back(id);
    if (state_ == State::idle) start();
}

void Connection::send_request(std::int64_t id) {
    auto it = pending_.find(id);
    if (it == pending_.end() || !transport_) return;
    auto& p = it->second;
    p.sent = true;
    if (stateless_) {
        if (answer_locally(id)) return;
        SendOptions options;
        auto msg = stateless_message(id, p.method, p.params, options);
        transport_->send_with(std::move(msg), id, std::move(options));
        return;
    }
    std::string msg;
    msg.reserve(p.params.size() + p.method.size() + 48);
    msg.append(R"({"jsonrpc":"2.0","id":)").append(std::to_string(id)).append(R"(,"method":)").append(quote(p.method));
    msg.append(R"(,"params":)").append(p.params).append("}");
    transport_->send(std::move(msg), id);
}

void Connection::cancel(coffer_call* handle) {
    if (!handle) return;
    for (auto& [id, p] : pending_) {
        if (p.handle != handle) continue;
        std::int64_t cid = id;
        if (p.sent) send_cancelled(cid, "cancelled by the client");
        std::erase(queued_, cid);
        finish(cid, {}, Failure{err::kCancelled, "cancelled by the client", std::string(reason::cancelled), {}}.text());
        return;
    }
}

void Connection::respond(std::uint64_t token, std::string_view result, std::string_view error) {
    if (auto ask = input_asks_.find(token); ask != input_asks_.end()) {
        auto [call, key] = std::move(ask->second);
        input_asks_.erase(ask);
        auto p = pending_.find(call);
        if (p == pending_.end()) return;
        if (!error.empty()) {
            drop_input_asks(call);
            finish(call, {}, error);  // the client refused the upstream's question
            return;
        }
        p->second.input_answers[key] = std::string(result.empty() ? std::string_view("{}") : result);
        if (p->second.input_waiting > 0 && --p->second.input_waiting == 0 && state_ == State::ready) {
            p->second.params = stateless::with_input(p->second.params, p->second.input_answers, p->second.input_state);
            send_request(call);  // the same request again, with the answers
        }
        return;
    }
    auto it = server_requests_.find(token);
    if (it == server_requests_.end()) return;
    std::string id = std::move(it->second);
    server_requests_.erase(it);
    if (state_ != State::closed) answer_upstream(id, result, error);
}

void Connection::notify(std::string_view method, std::string_view params) {
    // 2026-07-28 has no client notifications of this kind (roots are asked per request).
    if (state_ != State::ready || !transport_ || stateless_) return;
    // What capability the client must have declared for the upstream to hear it.
    const char* needs = method == "notifications/roots/list_changed" ? "roots" : nullptr;
    if (!needs || !raw_json::member(client_caps_, needs)) return;
    if (params.empty() || !raw_json::valid(params)) params = "{}";
    transport_->send(R"({"jsonrpc":"2.0","method":)" + quote(method) + R"(,"params":)" + std::string(params) + "}",
                     std::nullopt);
}

void Connection::close(const Failure& why) {
    if (state_ == State::closed) return;
    if (state_ == State::starting && admitted_) up_->health().abandoned();
    fail_all(why);
    set_closed();
}

// ---- lifecycle ----

void Connection::start() {
    state_ = State::starting;
    // Credential references are resolved now, for this connection only (G-13).
    auto resolved = resolve_credentials(cfg_, up_->runtime().host());
    if (!resolved.config) {
        up_->health().refused(resolved.error, false);
        fail_start(Failure{err::kUnavailable, who() + ": " + resolved.error, std::string(reason::credentials), {}}, false,
                   false);
        return;
    }
    // OAuth (oauth.hpp): a stored token goes on the requests, refreshed first (off the I/O
    // thread) when it is about to expire; then this start runs again.
    if (cfg_->transport == TransportKind::http && !has_header(*resolved.config, "authorization")) {
        auto& rt = up_->runtime();
        if (auto stored = stored_oauth()) {
            if ((needs_refresh(*stored) || (oauth_force_refresh_ && !stored->tokens.refresh_token.empty())) &&
                !oauth_refreshed_) {
                oauth_refreshed_ = true;
                bool queued = rt.blocking([weak = weak_from_this(), &rt, up = up_, cfg = cfg_, s = *stored]() mutable {
                    std::string error;
                    try {
                        up->remember_oauth(refresh_oauth(rt.host(), *cfg, std::move(s)));
                    } catch (const std::exception& e) {
                        error = e.what();
                    }
                    rt.post([weak, error, &rt, name = cfg->name] {
                        if (!error.empty()) rt.host().warn("mcp_server:" + name + ": OAuth token refresh failed: " + error);
                        if (auto self = weak.lock(); self && self->state_ == State::starting) self->start();
                    });
                });
                if (queued) return;
            }
            resolved.config = with_bearer(resolved.config, stored->tokens.access_token);
            stored_token_ = stored->tokens.access_token;
        }
    }
    auto now = Health::Clock::now();
    if (auto no = up_->health().admit(now)) {
        json::object extra{{"retry_in_ms", up_->health().retry_in(now).count()}};
        fail_start(Failure{err::kUnavailable, who() + ": " + *no, std::string(reason::unhealthy), extra}, false, false);
        return;
    }
    admitted_ = true;
    resolved_ = std::move(resolved.config);
    // Servers that have worked before go ahead of the others when starts have to wait.
    auto& starts = up_->runtime().starts();
    start_ticket_ = starts.enter(up_->health().state() == "ok", [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->open_transport();
    });
    if (starts.holds(start_ticket_)) open_transport();
}

void Connection::open_transport() {
    if (state_ != State::starting || transport_) return;
    hold_timer_ = std::make_shared<boost::asio::steady_timer>(up_->runtime().io(), StartQueue::kMaxHold);
    hold_timer_->async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        if (auto self = weak.lock(); self && !ec) self->release_start();
    });
    transport_ = make_transport(up_->runtime(), std::move(resolved_), *this);
    transport_->open();
    if (state_ != State::starting) return;
    init_timer_ = std::make_shared<boost::asio::steady_timer>(up_->runtime().io());
    init_timer_->expires_after(cfg_->timeout);
    std::weak_ptr<Connection> weak = weak_from_this();
    init_timer_->async_wait([weak](boost::system::error_code ec) {
        if (ec) return;
        auto self = weak.lock();
        if (!self || self->state_ != State::starting) return;
        self->fail_start(Failure{err::kTimeout,
                                 self->who() + " did not finish starting (discovery and initialize) within " +
                                     std::to_string(self->cfg_->timeout.count()) + " ms",
                                 std::string(reason::timeout), {}},
                         false, true);
    });
    begin();
}

// ---- the era: 2026-07-28 (stateless) or initialize ----

void Connection::begin() {
    if (up_->era() == Upstream::Era::sessions) send_initialize();
    else send_discover();
}

void Connection::send_discover() {
    if (!transport_) return;
    ++probes_;
    probing_ = true;
    probe_id_ = next_id_++;
    SendOptions options;
    options.probe = true;
    auto msg = stateless_message(probe_id_, "server/discover", "{}", options);
    // A legacy server may ignore a request before initialize: after a while it counts as legacy
    // (a modern one then refuses initialize naming 2026-07-28, and is probed once more).
    probe_timer_ = std::make_shared<boost::asio::steady_timer>(up_->runtime().io());
    probe_timer_->expires_after(std::min<std::chrono::milliseconds>(cfg_->timeout / 2, std::chrono::seconds(5)));
    probe_timer_->async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        auto self = weak.lock();
        if (ec || !self || !self->probing_ || self->state_ != State::starting) return;
        self->fall_back_to_initialize();
    });
    transport_->send_with(std::move(msg), probe_id_, std::move(options));
}

void Connection::on_discover(bool is_error, std::string_view payload) {
    probing_ = false;
    if (probe_timer_) probe_timer_->cancel();
    if (!is_error) {
        if (auto d = stateless::read_discovery(payload); d && d->speaks(stateless::kVersion)) {
            up_->set_era(Upstream::Era::stateless);
            stateless_ = true;
            protocol_version_ = std::string(stateless::kVersion);
            capabilities_ = d->capabilities;
            server_info_ = d->server_info;
            instructions_ = d->instructions;
            transport_->stateless(protocol_version_);
            become_ready();
            return;
        }
    } else if (auto versions = stateless::unsupported_version(payload)) {
        // A modern server without 2026-07-28: only one that also keeps a session-based
        // revision Coffer speaks can be used (the revision says not to fall back otherwise).
        bool legacy_too = std::any_of(versions->begin(), versions->end(),
                                      [](const std::string& v) { return supported_protocol_version(v); });
        if (!legacy_too) {
            std::string list;
            for (auto& v : *versions) list += (list.empty() ? "" : ", ") + v;
            fail_start(Failure{err::kUnavailable,
                               who() + " speaks only protocol versions " + (list.empty() ? "(none listed)" : list) +
                                   ", which Coffer does not (it speaks 2024-11-05 to 2026-07-28)",
                               std::string(reason::protocol), {}},
                       false, true);
            return;
        }
    }
    fall_back_to_initialize();
}

void Connection::fall_back_to_initialize() {
    probing_ = false;
    if (probe_timer_) probe_timer_->cancel();
    send_initialize();  // the era is remembered once initialize succeeds
}

std::string Connection::stateless_message(std::int64_t id, std::string_view method, std::string_view params,
                                          SendOptions& options) const {
    auto with = stateless::with_meta(params, client_caps_, "debug");
    if (cfg_->transport == TransportKind::http) {
        auto headers = up_->tool_headers();
        options.headers = stateless::request_headers(method, with, *headers);
        options.headers.emplace_back("MCP-Protocol-Version", std::string(stateless::kVersion));
    }
    std::string msg;
    msg.reserve(with.size() + method.size() + 48);
    msg.append(R"({"jsonrpc":"2.0","id":)").append(std::to_string(id)).append(R"(,"method":)").append(quote(method));
    msg.append(R"(,"params":)").append(with).append("}");
    return msg;
}

void Connection::send_initialize() {
    if (!transport_) return;
    init_id_ = next_id_++;
    std::string msg = R"({"jsonrpc":"2.0","id":)" + std::to_string(init_id_) +
                      R"(,"method":"initialize","params":{"protocolVersion":")" +
                      std::string(kProtocolVersions[version_index_]) + R"(","capabilities":)" + client_caps_ +
                      R"(,"clientInfo":{"name":"coffer","title":"Coffer MCP gateway","version":"0.1.0"}}})";
    transport_->send(std::move(msg), init_id_);
}

void Connection::on_initialize(std::string_view, bool is_error, std::string_view payload) {
    if (is_error) {
        std::string message;
        std::int64_t code = 0;
        boost::system::error_code ec;
        auto v = json::parse(payload, ec);
        if (!ec && v.is_object()) {
            if (auto* m = v.as_object().if_contains("message"); m && m->is_string()) message = m->as_string();
            if (auto* c = v.as_object().if_contains("code"); c && c->is_int64()) code = c->as_int64();
        }
        // A 2026-07-28 server that was not probed (the era was cached) or did not answer the probe
        // in time refuses the handshake with one of the revision's errors: probe (again).
        auto versions = stateless::unsupported_version(payload);
        bool modern_error = (versions && std::find(versions->begin(), versions->end(), stateless::kVersion) !=
                                             versions->end()) ||
                            code == jsonrpc::code::header_mismatch || code == jsonrpc::code::missing_capability;
        if (modern_error && probes_ < 2) {
            send_discover();
            return;
        }
        bool about_version = code == jsonrpc::code::invalid_params || lower(message).find("version") != std::string::npos;
        if (about_version && version_index_ + 1 < std::size(kProtocolVersions)) {
            ++version_index_;
            send_initialize();
            return;
        }
        fail_start(Failure{err::kUnavailable, who() + " refused initialize: " + (message.empty() ? std::string(payload) : message),
                           std::string(reason::start_failed), {}},
                   false, true);
        return;
    }
    std::string version;
    if (auto pv = raw_json::member(payload, "protocolVersion")) {
        boost::system::error_code ec;
        auto v = json::parse(*pv, ec);
        if (!ec && v.is_string()) version = v.as_string();
    }
    if (!supported_protocol_version(version)) {
        fail_start(Failure{err::kUnavailable,
                           who() + " answered initialize with protocol version \"" + version +
                               "\", which Coffer does not speak (it speaks 2024-11-05 to 2025-11-25)",
                           std::string(reason::protocol), {}},
                   false, true);
        return;
    }
    protocol_version_ = version;
    up_->set_era(Upstream::Era::sessions);
    if (auto si = raw_json::member(payload, "serverInfo")) server_info_ = std::string(*si);
    if (auto caps = raw_json::member(payload, "capabilities")) capabilities_ = std::string(*caps);
    instructions_.clear();  // a restarted upstream may have dropped them
    if (auto in = raw_json::member(payload, "instructions"))
        if (auto text = raw_json::decode_string(*in)) instructions_ = std::move(*text);
    transport_->initialized(protocol_version_);
    transport_->send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", std::nullopt);
    become_ready();
}

void Connection::become_ready() {
    if (init_timer_) init_timer_->cancel();
    release_start();
    if (state_ != State::starting) return;
    state_ = State::ready;
    up_->health().connected(protocol_version_, server_info_);
    up_->health().connection_opened();
    counted_ = true;
    auto q = std::move(queued_);
    queued_.clear();
    for (auto id : q) send_request(id);
    if (stateless_) open_listen();
}

void Connection::fail_start(const Failure& f, bool runner_missing, bool count_failure) {
    if (state_ == State::closed) return;
    // A start that went by a cached era and failed: find out afresh next time.
    if (probes_ == 0 || restarted_) up_->set_era(Upstream::Era::unknown);
    if (admitted_ && count_failure) up_->health().start_failed(f.message, runner_missing, Health::Clock::now());
    else if (admitted_) up_->health().refused(f.message, runner_missing);
    admitted_ = false;
    fail_all(f);
    set_closed();
}

void Connection::release_start() {
    if (!start_ticket_) return;
    if (hold_timer_) hold_timer_->cancel();
    auto t = start_ticket_;
    start_ticket_ = 0;
    up_->runtime().starts().leave(t);
}

void Connection::set_closed() {
    state_ = State::closed;
    release_start();
    if (init_timer_) init_timer_->cancel();
    if (probe_timer_) probe_timer_->cancel();
    if (listen_timer_) listen_timer_->cancel();
    listen_id_ = 0;
    input_asks_.clear();
    if (deadline_timer_) deadline_timer_->cancel();
    deadline_armed_ = false;
    if (transport_) transport_->close();
    if (counted_) {
        counted_ = false;
        up_->health().connection_closed();
    }
    server_requests_.clear();
    up_->remove(this);
}

// ---- completion ----

void Connection::finish(std::int64_t id, std::string_view result, std::string_view error) {
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    auto p = std::move(it->second);
    pending_.erase(it);
    if (p.input_waiting > 0) drop_input_asks(id);
    forget_deadline(p, id);
    if (p.done) p.done(result, error);
}

void Connection::fail_all(const Failure& f) {
    auto pending = std::move(pending_);
    pending_.clear();
    queued_.clear();
    deadlines_.clear();
    for (auto& [id, p] : pending)
        if (p.done) p.done({}, f.text());
}

void Connection::forget_deadline(const Pending& p, std::int64_t id) { deadlines_.erase({p.deadline, id}); }

void Connection::arm_deadline() {
    if (deadlines_.empty()) {
        deadline_armed_ = false;
        return;
    }
    if (!deadline_timer_) deadline_timer_ = std::make_shared<boost::asio::steady_timer>(up_->runtime().io());
    deadline_armed_ = true;
    deadline_timer_->expires_at(deadlines_.begin()->first);
    deadline_timer_->async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        if (ec) return;
        auto self = weak.lock();
        if (!self) return;
        self->deadline_armed_ = false;
        auto now = std::chrono::steady_clock::now();
        while (!self->deadlines_.empty() && self->deadlines_.begin()->first <= now) {
            auto id = self->deadlines_.begin()->second;
            self->deadlines_.erase(self->deadlines_.begin());
            self->timed_out(id);
        }
        if (!self->deadline_armed_) self->arm_deadline();
    });
}

void Connection::timed_out(std::int64_t id) {
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    bool sent = it->second.sent;
    std::string method = it->second.method;
    if (sent) send_cancelled(id, "timed out in Coffer");
    std::erase(queued_, id);
    std::string msg = state_ == State::starting || !sent
                          ? who() + " did not finish starting within " + std::to_string(cfg_->timeout.count()) + " ms"
                          : who() + " did not answer " + method + " within " + std::to_string(cfg_->timeout.count()) + " ms";
    finish(id, {}, Failure{err::kTimeout, msg, std::string(reason::timeout), {{"timeout_ms", cfg_->timeout.count()}}}.text());
}

void Connection::send_cancelled(std::int64_t id, std::string_view why) {
    if (!transport_ || state_ == State::closed) return;
    if (stateless_ && cfg_->transport == TransportKind::http) {  // 2026-07-28: closing the stream is the cancel
        transport_->abandon(id);
        return;
    }
    transport_->send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" +
                         std::to_string(id) + R"(,"reason":)" + quote(why) + "}}",
                     std::nullopt);
}

// ---- from the upstream ----

void Connection::on_message(std::string_view text, std::optional<std::int64_t> context) {
    if (state_ == State::closed) return;
    auto keep = shared_from_this();
    // Validate without a DOM (results may be megabytes); then only spans are looked at.
    if (!raw_json::valid(text)) {
        up_->runtime().host().warn("mcp_server '" + up_->name() + "': ignored a message that is not JSON (" +
                                   std::to_string(text.size()) + " bytes)");
        return;
    }
    auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '[') {
        std::vector<std::string_view> items;
        if (raw_json::items(text, items))
            for (auto item : items) {
                if (state_ == State::closed) return;
                handle(item, context);
            }
        return;
    }
    handle(text, context);
}

void Connection::handle(std::string_view text, std::optional<std::int64_t> context) {
    // One pass over the message for the members that say what it is, and its params.
    static constexpr std::array<std::string_view, 5> kKeys{"method", "id", "result", "error", "params"};
    std::array<std::optional<std::string_view>, 5> found;
    raw_json::pick(text, kKeys, found);
    const auto& method_span = found[0];
    const auto& id_span = found[1];
    if (method_span) {
        boost::system::error_code ec;
        auto m = json::parse(*method_span, ec);
        if (ec || !m.is_string()) return;
        std::string method(m.as_string());
        auto params = found[4].value_or(std::string_view("{}"));
        if (id_span && *id_span != "null") handle_server_request(*id_span, method, params, context);
        else handle_notification(method, params, context);
        return;
    }
    if (!id_span) return;
    boost::system::error_code ec;
    auto idv = json::parse(*id_span, ec);
    if (ec || !idv.is_int64()) {
        // A response we cannot correlate (the upstream echoed a different id): an error without id
        // belongs to the one request in flight, if there is exactly one.
        return;
    }
    std::int64_t id = idv.as_int64();
    const auto& result = found[2];
    const auto& error = found[3];
    if (probe_id_ && id == probe_id_ && state_ == State::starting) {
        if (probing_) {
            if (error) on_discover(true, *error);
            else if (result) on_discover(false, *result);
        } else if (result) {  // answered after the time limit, while initialize is on its way
            if (auto d = stateless::read_discovery(*result); d && d->speaks(stateless::kVersion)) on_discover(false, *result);
        }
        return;
    }
    if (listen_id_ && id == listen_id_) {  // the upstream ended the subscription (or refused it)
        if (error) {
            listen_unsupported_ = true;
            listen_id_ = 0;
            up_->runtime().host().warn("mcp_server '" + up_->name() + "': subscriptions/listen refused: " +
                                       std::string(error->substr(0, 300)));
            return;
        }
        listen_lost();
        return;
    }
    if (stateless_ && stateless_result(id, result.value_or(std::string_view()), error.value_or(std::string_view())))
        return;
    if (state_ == State::starting && id == init_id_) {
        if (error) on_initialize(text, true, *error);
        else if (result) on_initialize(text, false, *result);
        return;
    }
    if (error) finish(id, {}, *error);
    else if (result) finish(id, *result, {});
}

void Connection::handle_notification(std::string_view method, std::string_view params,
                                     std::optional<std::int64_t> context) {
    if (method == "notifications/progress") {
        auto tok = raw_json::member(params, "progressToken");
        if (!tok) return;
        boost::system::error_code ec;
        auto t = json::parse(*tok, ec);
        if (ec || !t.is_int64()) return;
        auto it = pending_.find(t.as_int64());
        if (it == pending_.end() || it->second.orig_token.empty() || !sink_) return;
        std::string fixed = raw_json::splice(params, *tok, it->second.orig_token);
        sink_->notify(R"({"method":"notifications/progress","params":)" + fixed + "}", it->second.handle);
        return;
    }
    if (method == "notifications/cancelled") {
        // The upstream gave up a request it made to the client: the token names it to the host.
        auto rid = raw_json::member(params, "requestId");
        if (!rid) return;
        if (stateless_ && listen_id_ && *rid == std::to_string(listen_id_)) {  // it ended our subscription
            listen_lost();
            return;
        }
        for (auto it = server_requests_.begin(); it != server_requests_.end(); ++it) {
            if (it->second != *rid) continue;
            auto token = it->first;
            server_requests_.erase(it);
            if (sink_) {
                std::string extra;
                if (auto r = raw_json::member(params, "reason")) extra = R"(,"reason":)" + std::string(*r);
                sink_->notify(R"({"method":"notifications/cancelled","params":{"requestId":)" + std::to_string(token) +
                                  extra + "}}",
                              nullptr);
            }
            return;
        }
        return;
    }
    if (stateless_) {
        // What a subscription carries names it: a replaced one's late messages are dropped.
        if (auto meta = raw_json::member(params, "_meta"))
            if (auto sub = raw_json::member(*meta, "io.modelcontextprotocol/subscriptionId"))
                if (*sub != std::to_string(listen_id_)) return;
        if (method == "notifications/subscriptions/acknowledged") {
            listen_acknowledged_ = std::chrono::steady_clock::now();
            return;
        }
    }
    if (!sink_) return;
    bool unrelated = (method.size() > 13 && method.substr(method.size() - 13) == "/list_changed") ||
                     method == "notifications/resources/updated";
    sink_->notify(R"({"method":)" + quote(method) + R"(,"params":)" + std::string(params) + "}",
                  unrelated ? nullptr : related(context));
}

void Connection::handle_server_request(std::string_view id, std::string_view method, std::string_view params,
                                       std::optional<std::int64_t> context) {
    if (method == "ping") {
        answer_upstream(id, "{}", {});
        return;
    }
    std::uint64_t token = g_next_token.fetch_add(1);
    server_requests_[token] = std::string(id);
    bool taken = sink_ && sink_->request(token, R"({"method":)" + quote(method) + R"(,"params":)" + std::string(params) + "}",
                                         related(context));
    if (!taken && server_requests_.erase(token))
        answer_upstream(id, {},
                        json::serialize(json::object{
                            {"code", jsonrpc::code::method_not_found},
                            {"message", "the client cannot answer " + std::string(method) + " through Coffer"}}));
}

void Connection::answer_upstream(std::string_view id, std::string_view result, std::string_view error) {
    if (!transport_ || state_ == State::closed) return;
    std::string msg = R"({"jsonrpc":"2.0","id":)" + std::string(id);
    if (!error.empty()) msg += R"(,"error":)" + std::string(error) + "}";
    else msg += R"(,"result":)" + std::string(result.empty() ? std::string_view("{}") : result) + "}";
    transport_->send(std::move(msg), std::nullopt);
}

coffer_call* Connection::related(std::optional<std::int64_t> context) const {
    if (context) {
        auto it = pending_.find(*context);
        return it == pending_.end() ? nullptr : it->second.handle;
    }
    // stdio has no per-request stream: with exactly one call in flight, it is the one.
    coffer_call* only = nullptr;
    int n = 0;
    for (auto& [id, p] : pending_)
        if (p.sent) {
            only = p.handle;
            if (++n > 1) return nullptr;
        }
    return only;
}

void Connection::on_send_failed(std::int64_t id, std::string error) {
    auto keep = shared_from_this();
    if (probing_ && id == probe_id_ && state_ == State::starting) {
        if (unauthorized_) {  // the same token would be refused at initialize
            if (retry_with_refreshed_token()) return;
            fail_start(Failure{err::kUnavailable, who() + ": " + error, std::string(reason::start_failed), {}}, false, true);
            return;
        }
        // 4xx without a modern JSON-RPC error: legacy. A server error or a rate limit says
        // nothing about the era: the start fails (and is retried with backoff).
        if (error.rfind("HTTP 5", 0) == 0 || error.rfind("HTTP 429", 0) == 0) {
            fail_start(Failure{err::kUnavailable, who() + ": " + error, std::string(reason::start_failed), {}}, false, true);
            return;
        }
        fall_back_to_initialize();
        return;
    }
    if (listen_id_ && id == listen_id_) {
        listen_lost();
        return;
    }
    if (state_ == State::starting && id == init_id_) {
        if (unauthorized_ && retry_with_refreshed_token()) return;
        fail_start(Failure{err::kUnavailable, who() + ": " + error, std::string(reason::start_failed), {}}, false, true);
        return;
    }
    if (unauthorized_ && state_ == State::ready) {
        unauthorized_ = false;
        if (resend_after_refresh(id)) return;
    }
    finish(id, {}, Failure{err::kUnavailable, who() + ": " + error, std::string(reason::http_error), {}}.text());
}

bool Connection::resend_after_refresh(std::int64_t id) {
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.auth_retry || cfg_->transport != TransportKind::http ||
        has_header(*cfg_, "authorization"))  // a configured Authorization header is the user's, not ours
        return false;
    auto stored = stored_oauth();
    if (!stored || stored->tokens.refresh_token.empty()) return false;
    it->second.auth_retry = true;
    it->second.sent = false;
    auth_waiting_.push_back(id);
    if (refreshing_) return true;
    // Refreshed moments ago by another connection: use that token.
    if (auto recent = up_->recent_oauth(); recent && recent->grant.server_url == cfg_->url &&
                                           recent->tokens.access_token != stored_token_) {
        refreshed(recent, {});
        return true;
    }
    refreshing_ = true;
    auto& rt = up_->runtime();
    bool queued = rt.blocking([weak = weak_from_this(), &rt, up = up_, cfg = cfg_, s = *stored]() mutable {
        std::optional<StoredOAuth> fresh;
        std::string error;
        try {
            fresh = refresh_oauth(rt.host(), *cfg, std::move(s));
            up->remember_oauth(*fresh);
        } catch (const std::exception& e) {
            error = e.what();
        }
        rt.post([weak, fresh, error] {
            if (auto self = weak.lock()) self->refreshed(fresh, error);
        });
    });
    if (!queued) {
        refreshing_ = false;
        auth_waiting_.pop_back();
        return false;
    }
    return true;
}

void Connection::refreshed(const std::optional<StoredOAuth>& fresh, const std::string& error) {
    refreshing_ = false;
    auto ids = std::move(auth_waiting_);
    auth_waiting_.clear();
    if (state_ != State::ready || !transport_) return;  // closing failed the calls already
    if (!fresh) {
        up_->runtime().host().warn("mcp_server:" + up_->name() + ": OAuth token refresh failed: " + error);
        for (auto id : ids)
            finish(id, {},
                   Failure{err::kUnavailable,
                           who() + " refused the OAuth token and refreshing it failed (" + error +
                               "): run `coffer mcp login " + cfg_->name + "`",
                           std::string(reason::http_error), {}}
                       .text());
        return;
    }
    stored_token_ = fresh->tokens.access_token;
    transport_->bearer(fresh->tokens.access_token);
    for (auto id : ids) send_request(id);
}

std::optional<StoredOAuth> Connection::stored_oauth() const {
    auto recent = up_->recent_oauth();
    if (recent && recent->grant.server_url == cfg_->url) return recent;
    return load_oauth(up_->runtime().host(), *cfg_);
}

bool Connection::retry_with_refreshed_token() {
    unauthorized_ = false;
    if (oauth_refreshed_ || cfg_->transport != TransportKind::http) return false;
    auto stored = stored_oauth();
    if (!stored || stored->tokens.refresh_token.empty()) return false;
    if (init_timer_) init_timer_->cancel();
    probing_ = false;
    if (probe_timer_) probe_timer_->cancel();
    if (transport_) {
        transport_->close();
        transport_.reset();
    }
    release_start();
    if (admitted_) {
        up_->health().abandoned();
        admitted_ = false;
    }
    oauth_force_refresh_ = true;
    start();  // refreshes off the I/O thread, then starts once more
    return true;
}

bool Connection::awaiting(std::int64_t id) const {
    if (state_ == State::closed) return false;
    return pending_.count(id) != 0 || (state_ == State::starting && (id == init_id_ || (probing_ && id == probe_id_))) ||
           (listen_id_ != 0 && id == listen_id_);
}

void Connection::on_closed(std::string error, bool runner_missing) {
    if (state_ == State::closed) return;
    auto keep = shared_from_this();
    if (state_ == State::starting && probes_ > 0 && !restarted_ && !runner_missing &&
        cfg_->transport == TransportKind::stdio) {
        restarted_ = true;
        // A legacy server that exits on a request before initialize: start it again without
        // the probe.
        up_->health().abandoned();
        admitted_ = false;
        probing_ = false;
        if (probe_timer_) probe_timer_->cancel();
        if (init_timer_) init_timer_->cancel();
        up_->set_era(Upstream::Era::sessions);
        transport_.reset();
        release_start();
        start();
        return;
    }
    if (state_ == State::starting) {
        std::string msg = runner_missing ? error : who() + " failed to start: " + error;
        if (runner_missing)  // a cheap check, no backoff: installing the runner fixes the next call
            fail_start(Failure{err::kUnavailable, msg, std::string(reason::runner_not_installed), {}}, true, false);
        else
            fail_start(Failure{err::kUnavailable, msg, std::string(reason::start_failed), {}}, false, true);
        return;
    }
    std::string msg = who() + " connection lost: " + error;
    up_->health().lost(msg);
    up_->runtime().host().warn("mcp_server '" + up_->name() + "': " + msg);
    // Each pending call says what it was doing.
    auto pending = std::move(pending_);
    pending_.clear();
    deadlines_.clear();
    for (auto& [id, p] : pending) {
        if (p.done)
            p.done({}, Failure{err::kUnavailable, msg + " (while handling " + p.method + ")",
                               std::string(reason::upstream_exited), {}}
                           .text());
    }
    set_closed();
}

// ---- 2026-07-28 ----

bool Connection::answer_locally(std::int64_t id) {
    auto& p = pending_.at(id);
    if (p.method == "resources/subscribe" || p.method == "resources/unsubscribe") {
        // The revision subscribes on the subscriptions/listen stream: it is opened again with
        // the new set of resources.
        auto uri = raw_json::member(p.params, "uri");
        auto text = uri ? raw_json::decode_string(*uri) : std::nullopt;
        if (!text) {
            finish(id, {},
                   json::serialize(json::object{{"code", jsonrpc::code::invalid_params}, {"message", "Invalid params: uri is required"}}));
            return true;
        }
        auto resources = raw_json::member(capabilities_, "resources");
        auto subscribe = resources ? raw_json::member(*resources, "subscribe") : std::nullopt;
        if (p.method == "resources/subscribe" && (!subscribe || *subscribe != "true")) {
            finish(id, {},
                   json::serialize(json::object{{"code", jsonrpc::code::method_not_found},
                                                {"message", who() + " does not offer resource subscriptions"}}));
            return true;
        }
        if (p.method == "resources/subscribe") subscriptions_.insert(*text);
        else subscriptions_.erase(*text);
        finish(id, "{}", {});
        open_listen();
        return true;
    }
    if (p.method == "ping" || p.method == "logging/setLevel") {  // gone from the revision
        finish(id, "{}", {});
        return true;
    }
    return false;
}

bool Connection::stateless_result(std::int64_t id, std::string_view result, std::string_view error) {
    auto it = pending_.find(id);
    if (it == pending_.end()) return false;
    auto& p = it->second;
    if (!result.empty()) {
        auto type = raw_json::member(result, "resultType");
        if (type && *type == R"("input_required")") {
            if (auto in = stateless::read_input_required(result)) {
                ask_input(id, std::move(*in));
                return true;
            }
        }
        // Left out whatever the transport: the gateway offers these tools over HTTP downstream.
        if (p.method == "tools/list") {
            auto learned = std::make_shared<stateless::ToolHeaders>(*up_->tool_headers());
            std::vector<std::pair<std::string, std::string>> rejected;
            auto kept = stateless::filter_tools(result, *learned, rejected);
            up_->set_tool_headers(std::move(learned));
            for (auto& [tool, why] : rejected)
                up_->runtime().host().warn("mcp_server '" + up_->name() + "': left out tool '" + tool + "': " + why);
            finish(id, kept, {});
            return true;
        }
        return false;
    }
    // A HeaderMismatch on a call: the tool's annotations may have changed; list the tools (which
    // learns them) and send the call once more.
    auto code = raw_json::member(error, "code");
    if (p.method == "tools/call" && !p.header_retry && code &&
        *code == std::to_string(jsonrpc::code::header_mismatch) && cfg_->transport == TransportKind::http) {
        p.header_retry = true;
        auto again = renumber(id);  // the refused exchange may still report that it ended
        submit(CallRequest{"tools/list", "{}",
                           [weak = weak_from_this(), id = again](std::string_view, std::string_view) {
                               auto self = weak.lock();
                               if (self && self->state_ == State::ready && self->pending_.count(id))
                                   self->send_request(id);
                           },
                           nullptr});
        return true;
    }
    return false;
}

std::int64_t Connection::renumber(std::int64_t id) {
    // The retry is a new request (the answered one's transport exchange is over, and may still
    // report that it ended); its progress token, our own, follows the id.
    auto node = pending_.extract(id);
    if (node.empty()) return id;
    std::int64_t fresh = next_id_++;
    auto& p = node.mapped();
    forget_deadline(p, id);
    deadlines_.emplace(p.deadline, fresh);
    if (!p.orig_token.empty())
        if (auto meta = raw_json::member(p.params, "_meta"))
            if (auto tok = raw_json::member(*meta, "progressToken")) p.params = raw_json::splice(p.params, *tok, std::to_string(fresh));
    p.sent = false;
    node.key() = fresh;
    pending_.insert(std::move(node));
    return fresh;
}

// The client's answers to an input_required call that ended are no longer wanted: the questions
// still open are withdrawn (as a legacy server cancels its own request).
void Connection::drop_input_asks(std::int64_t id) {
    for (auto it = input_asks_.begin(); it != input_asks_.end();) {
        if (it->second.first != id) {
            ++it;
            continue;
        }
        if (sink_)
            sink_->notify(R"({"method":"notifications/cancelled","params":{"requestId":)" + std::to_string(it->first) +
                              R"(,"reason":"the call ended"}})",
                          nullptr);
        it = input_asks_.erase(it);
    }
}

void Connection::ask_input(std::int64_t answered, stateless::InputRequired in) {
    // The answered request is over; what follows belongs to its retry.
    std::int64_t id = renumber(answered);
    auto& p = pending_.at(id);
    constexpr int kMaxRounds = 16;
    if (++p.input_rounds > kMaxRounds || (in.requests.empty() && !in.state)) {
        finish(id, {},
               Failure{err::kUnavailable,
                       who() + (in.requests.empty() && !in.state ? " asked for input without saying what"
                                                                 : " kept asking for input (more than 16 rounds)"),
                       std::string(reason::protocol), {}}
                   .text());
        return;
    }
    p.input_state = std::move(in.state);
    p.input_answers.clear();
    p.input_waiting = in.requests.size();
    if (in.requests.empty()) {  // only state to carry: send it straight back
        p.params = stateless::with_input(p.params, p.input_answers, p.input_state);
        send_request(id);
        return;
    }
    // Each question goes to the client the way a legacy server's own request would (the gateway
    // asks a 2026-07-28 client with input_required in turn).
    for (auto& [key, request] : in.requests) {
        auto method = raw_json::member(request, "method");
        auto name = method ? raw_json::decode_string(*method) : std::nullopt;
        std::uint64_t token = g_next_token.fetch_add(1);
        input_asks_[token] = {id, key};
        auto params = raw_json::member(request, "params").value_or(std::string_view("{}"));
        bool taken = name && sink_ &&
                     sink_->request(token, R"({"method":)" + quote(*name) + R"(,"params":)" + std::string(params) + "}",
                                    p.handle);
        if (!taken) {
            drop_input_asks(id);
            finish(id, {},
                   json::serialize(json::object{
                       {"code", jsonrpc::code::method_not_found},
                       {"message", who() + " needs the client to answer " + (name ? *name : std::string("a request")) +
                                       ", which it cannot through Coffer"}}));
            return;
        }
        if (!pending_.count(id)) return;  // answered (or failed) synchronously
    }
}

void Connection::open_listen() {
    if (!stateless_ || !transport_ || state_ != State::ready || listen_unsupported_) return;
    json::object filter;
    boost::system::error_code ec;
    auto caps = json::parse(capabilities_.empty() ? std::string_view("{}") : std::string_view(capabilities_), ec);
    auto wants = [&](const char* kind, const char* flag) {
        const auto* o = !ec && caps.is_object() ? caps.as_object().if_contains(kind) : nullptr;
        const auto* f = o && o->is_object() ? o->as_object().if_contains(flag) : nullptr;
        return f && f->is_bool() && f->as_bool();
    };
    if (wants("tools", "listChanged")) filter["toolsListChanged"] = true;
    if (wants("prompts", "listChanged")) filter["promptsListChanged"] = true;
    if (wants("resources", "listChanged")) filter["resourcesListChanged"] = true;
    if (wants("resources", "subscribe") && !subscriptions_.empty()) {
        json::array uris;
        for (auto& u : subscriptions_) uris.emplace_back(u);
        filter["resourceSubscriptions"] = std::move(uris);
    }
    auto text = json::serialize(filter);
    if (listen_id_ && text == listen_filter_) return;
    std::int64_t old = listen_id_;
    listen_id_ = 0;
    // The replaced stream is cancelled (stdio: notifications/cancelled; HTTP: its stream closed).
    if (old) send_cancelled(old, "subscriptions changed");
    listen_filter_ = text;
    if (filter.empty()) return;
    listen_id_ = next_id_++;
    SendOptions options;
    auto msg = stateless_message(listen_id_, "subscriptions/listen", R"({"notifications":)" + text + "}", options);
    transport_->send_with(std::move(msg), listen_id_, std::move(options));
}

void Connection::listen_lost() {
    listen_id_ = 0;
    listen_filter_.clear();
    if (state_ != State::ready) return;
    // Open it again: at once after a stream that lived (acknowledged a minute or more ago), else
    // waiting longer each time (up to 30 s).
    auto now = std::chrono::steady_clock::now();
    if (listen_acknowledged_ && now - *listen_acknowledged_ > std::chrono::minutes(1)) listen_failures_ = 0;
    listen_acknowledged_.reset();
    long wait_ms = std::min(250L << std::min(listen_failures_, 7), 30000L);
    ++listen_failures_;
    if (!listen_timer_) listen_timer_ = std::make_shared<boost::asio::steady_timer>(up_->runtime().io());
    listen_timer_->expires_after(std::chrono::milliseconds(wait_ms));
    listen_timer_->async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        if (auto self = weak.lock(); self && !ec) self->open_listen();
    });
}

}  // namespace coffer::mcp_server
