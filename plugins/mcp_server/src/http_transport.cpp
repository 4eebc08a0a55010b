#include "http_transport.hpp"
#include "credentials.hpp"

#include <coffer/sse.hpp>


#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>
#include <boost/url.hpp>

#include <charconv>
#include <functional>
#include <map>
#include <vector>

namespace coffer::mcp_server {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using asio::use_awaitable;

// A name to endpoints. A literal address needs no lookup. Otherwise Asio's resolver runs on the
// plugin's own thread; on the host's lent loop it cannot (its background thread completes into an
// io_context that nobody is inside, and nothing would wake the loop), so the lookup runs on the
// blocking thread and its answer comes back through Runtime::post.
asio::awaitable<tcp::resolver::results_type> resolve(Runtime& rt, std::string host, std::string port) {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(host, ec);
    if (!ec) {
        unsigned long n = 0;
        auto [end, perr] = std::from_chars(port.data(), port.data() + port.size(), n);
        if (perr == std::errc() && end == port.data() + port.size() && n <= 65535)
            co_return tcp::resolver::results_type::create(tcp::endpoint(address, static_cast<unsigned short>(n)), host,
                                                          port);
    }
    if (!rt.lent()) {
        tcp::resolver resolver(rt.io());
        co_return co_await resolver.async_resolve(host, port, use_awaitable);
    }
    using Signature = void(boost::system::error_code, tcp::resolver::results_type);
    co_return co_await asio::async_initiate<const asio::use_awaitable_t<>&, Signature>(
        [&rt, host, port](auto handler) {
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            bool queued = rt.blocking([&rt, h, host, port] {
                asio::io_context local;
                tcp::resolver resolver(local);
                boost::system::error_code error;
                auto found = resolver.resolve(host, port, error);
                rt.post([h, error, found]() mutable { (*h)(error, std::move(found)); });
            });
            if (!queued)
                rt.post([h]() mutable { (*h)(asio::error::operation_aborted, tcp::resolver::results_type{}); });
        },
        use_awaitable);
}

constexpr std::size_t kMaxBody = 64 * 1024 * 1024;

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

struct Target {
    bool tls = false;
    std::string host;         // for DNS and SNI (no brackets)
    std::string port;
    std::string host_header;  // host[:port] as written in the URL
    std::string path;         // origin-form: /path?query
    std::string url;          // the whole URL, base for relative references
};

std::optional<Target> to_target(std::string_view url, std::string& why) {
    auto r = boost::urls::parse_uri(url);
    if (!r) {
        why = "invalid URL " + std::string(url) + ": " + r.error().message();
        return std::nullopt;
    }
    Target t;
    auto scheme = lower(r->scheme());
    if (scheme == "https") t.tls = true;
    else if (scheme != "http") {
        why = "unsupported URL scheme " + scheme;
        return std::nullopt;
    }
    t.host = std::string(r->host_address());
    if (t.host.empty()) {
        why = "the URL has no host";
        return std::nullopt;
    }
    t.port = r->has_port() ? std::string(r->port()) : std::string(t.tls ? "443" : "80");
    t.host_header = std::string(r->encoded_host_and_port());
    t.path = r->encoded_path().empty() ? std::string("/") : std::string(r->encoded_path());
    if (r->has_query()) t.path += "?" + std::string(r->encoded_query());
    t.url = std::string(url);
    return t;
}

// The message of a JSON-RPC error body, if the body is one.
std::string rpc_error_message(const std::string& body) {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    if (ec || !v.is_object()) return {};
    auto* e = v.as_object().if_contains("error");
    if (!e || !e->is_object()) return {};
    auto* m = e->as_object().if_contains("message");
    return m && m->is_string() ? std::string(m->as_string()) : std::string();
}

bool is_rpc_response_with_id(const std::string& body) {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    if (ec || !v.is_object()) return false;
    auto* id = v.as_object().if_contains("id");
    return id && !id->is_null() && (v.as_object().contains("error") || v.as_object().contains("result"));
}

std::string snippet(const std::string& body) {
    std::string s = body.substr(0, 200);
    for (auto& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return body.size() > 200 ? s + "…" : s;
}

struct Reply {
    unsigned status = 0;
    std::string reason;
    bool sse = false;
    std::string body;  // unless streamed as SSE
    std::optional<long> retry;  // the stream's last `retry` field
    std::string last_event_id;  // the stream's last event id ("" when it gave none)
};

// Called for each event of an SSE answer; false stops reading it (the connection is dropped).
using SseHandler = std::function<bool(const SseEvent&)>;

// A response stream that broke before its answer is resumed (GET with Last-Event-ID) at most
// this many times in a row without bringing a new event.
constexpr int kMaxFruitlessResumes = 5;

class HttpTransport final : public Transport, public std::enable_shared_from_this<HttpTransport> {
public:
    HttpTransport(Runtime& rt, std::shared_ptr<const ServerConfig> cfg, TransportEvents& ev)
        : rt_(rt), cfg_(std::move(cfg)), ev_(&ev), ssl_(ssl::context::tls_client) {
        boost::system::error_code ignore;
        ssl_.set_default_verify_paths(ignore);
        ssl_.set_verify_mode(ssl::verify_peer);
    }

    void open() override {
        std::string why;
        auto t = to_target(cfg_->url, why);
        if (!t) {
            fail_later(why);
            return;
        }
        base_ = std::move(*t);
    }

    void send(std::string message, std::optional<std::int64_t> request_id) override {
        send_with(std::move(message), request_id, {});
    }

    void send_with(std::string message, std::optional<std::int64_t> request_id, SendOptions options) override {
        if (closed_ || failed_) return;
        if (mode_ == Mode::legacy_connecting) {
            legacy_queue_.emplace_back(std::move(message), request_id);
            return;
        }
        asio::co_spawn(rt_.io(), post(shared_from_this(), std::move(message), request_id, std::move(options)),
                       asio::detached);
    }

    void bearer(const std::string& access_token) override { cfg_ = with_bearer(cfg_, access_token); }

    void abandon(std::int64_t id) override {
        auto it = owners_.find(id);
        if (it == owners_.end()) return;
        auto closer = closers_.find(it->second);
        if (closer != closers_.end()) closer->second();
    }

    void stateless(const std::string& protocol_version) override {
        proto_ = protocol_version;
        mode_ = Mode::stateless;
        session_id_.clear();
    }

    void initialized(const std::string& protocol_version) override {
        proto_ = protocol_version;
        if (mode_ == Mode::streamable && !closed_)
            asio::co_spawn(rt_.io(), get_stream(shared_from_this()), asio::detached);
    }

    void close() override {
        if (closed_) return;
        closed_ = true;
        auto closers = std::move(closers_);
        closers_.clear();
        for (auto& [k, f] : closers) f();
        if (mode_ == Mode::streamable && !session_id_.empty())
            asio::co_spawn(rt_.io(), delete_session(shared_from_this()), asio::detached);
    }

private:
    // stateless: 2026-07-28 (no session, no GET stream, every request self-contained).
    enum class Mode { probing, streamable, stateless, legacy_connecting, legacy };

    // Cancels an operation's socket when the transport closes.
    class CloseGuard {
    public:
        CloseGuard(HttpTransport& t, std::function<void()> f, std::optional<std::int64_t> owner = std::nullopt)
            : t_(t), key_(t.next_closer_++), owner_(owner) {
            t_.closers_[key_] = std::move(f);
            if (owner_) t_.owners_[*owner_] = key_;
        }
        ~CloseGuard() {
            t_.closers_.erase(key_);
            if (owner_)
                if (auto it = t_.owners_.find(*owner_); it != t_.owners_.end() && it->second == key_) t_.owners_.erase(it);
        }

    private:
        HttpTransport& t_;
        std::uint64_t key_;
        std::optional<std::int64_t> owner_;
    };

    void fail_later(std::string why) {
        auto self = shared_from_this();
        asio::post(rt_.io(), [self, why] { self->fail(why); });
    }
    void fail(const std::string& why) {
        if (closed_ || failed_) return;
        failed_ = true;
        ev_->on_closed(why, false);
    }
    void deliver(std::string_view text, std::optional<std::int64_t> context) {
        if (closed_ || failed_ || text.empty()) return;
        ev_->on_message(text, context);
    }

    using Headers = std::vector<std::pair<std::string, std::string>>;

    http::request<http::string_body> make_request(const Target& t, http::verb verb, std::string body,
                                                  const std::string& last_event_id, const Headers& extra) const {
        http::request<http::string_body> req{verb, t.path, 11};
        req.set(http::field::host, t.host_header);
        req.set(http::field::user_agent, "coffer-mcp-gateway/0.1");
        for (auto& [k, v] : cfg_->headers) req.set(k, v);
        if (verb == http::verb::post) {
            req.set(http::field::content_type, "application/json");
            req.set(http::field::accept, "application/json, text/event-stream");
            req.body() = std::move(body);
        } else if (verb == http::verb::get) {
            req.set(http::field::accept, "text/event-stream");
            req.set(http::field::cache_control, "no-cache");
            if (!last_event_id.empty()) req.set("Last-Event-ID", last_event_id);
        }
        if (!session_id_.empty() && mode_ != Mode::legacy && mode_ != Mode::legacy_connecting)
            req.set("Mcp-Session-Id", session_id_);
        if (!proto_.empty()) req.set("MCP-Protocol-Version", proto_);
        for (auto& [k, v] : extra) req.set(k, v);
        req.prepare_payload();
        return req;
    }

    // One request on a fresh connection. SSE answers are streamed to `on_sse`; anything else is
    // collected in Reply::body. `deadline` bounds the whole exchange (else only the connect). A GET
    // with `last_event_id` resumes the stream that event was on.
    asio::awaitable<Reply> exchange(Target t, http::verb verb, std::string body, SseHandler on_sse,
                                    std::optional<std::chrono::milliseconds> deadline = std::nullopt,
                                    std::string last_event_id = {}, Headers extra = {},
                                    std::optional<std::int64_t> owner = std::nullopt) {
        auto req = make_request(t, verb, std::move(body), last_event_id, extra);
        auto endpoints = co_await resolve(rt_, t.host, t.port);
        auto connect_limit = deadline.value_or(cfg_->timeout);
        if (t.tls) {
            beast::ssl_stream<beast::tcp_stream> s(rt_.io(), ssl_);
            CloseGuard guard(*this, [&s] { beast::get_lowest_layer(s).close(); }, owner);
            if (!SSL_set_tlsext_host_name(s.native_handle(), t.host.c_str()))
                throw std::runtime_error("cannot set the TLS server name");
            s.set_verify_callback(ssl::host_name_verification(t.host));
            beast::get_lowest_layer(s).expires_after(connect_limit);
            co_await beast::get_lowest_layer(s).async_connect(endpoints, use_awaitable);
            co_await s.async_handshake(ssl::stream_base::client, use_awaitable);
            if (!deadline) beast::get_lowest_layer(s).expires_never();
            co_return co_await run(s, req, on_sse);
        }
        beast::tcp_stream s(rt_.io());
        CloseGuard guard(*this, [&s] { s.close(); }, owner);
        s.expires_after(connect_limit);
        co_await s.async_connect(endpoints, use_awaitable);
        if (!deadline) s.expires_never();
        co_return co_await run(s, req, on_sse);
    }

    template <typename Stream>
    asio::awaitable<Reply> run(Stream& s, http::request<http::string_body>& req, const SseHandler& on_sse) {
        co_await http::async_write(s, req, use_awaitable);
        beast::flat_buffer buf;
        http::response_parser<http::buffer_body> p;
        p.body_limit(boost::none);
        co_await http::async_read_header(s, buf, p, use_awaitable);
        Reply r;
        r.status = p.get().result_int();
        r.reason = std::string(p.get().reason());
        r.sse = lower(p.get()[http::field::content_type]).rfind("text/event-stream", 0) == 0;
        auto sid = p.get()["Mcp-Session-Id"];
        if (!sid.empty() && r.status / 100 == 2 && mode_ != Mode::stateless) session_id_ = std::string(sid);
        bool stream = r.sse && r.status / 100 == 2 && on_sse;
        SseParser parser;
        bool more = true;
        auto each = [&](const SseEvent& e) {
            if (more && !on_sse(e)) more = false;
        };
        std::vector<char> chunk(16384);
        while (!p.is_done()) {
            p.get().body().data = chunk.data();
            p.get().body().size = chunk.size();
            boost::system::error_code ec;
            co_await http::async_read_some(s, buf, p, asio::redirect_error(use_awaitable, ec));
            if (ec == http::error::need_buffer) ec = {};
            std::size_t n = chunk.size() - p.get().body().size;
            if (stream) {
                if (n && !parser.feed(std::string_view(chunk.data(), n), each)) break;
                if (closed_ || !more) break;
            } else {
                r.body.append(chunk.data(), n);
                if (r.body.size() > kMaxBody) throw std::runtime_error("the upstream's answer is larger than 64 MiB");
            }
            if (ec) {
                if (stream) break;  // the stream ended
                throw boost::system::system_error(ec);
            }
        }
        r.retry = parser.retry_ms();
        r.last_event_id = parser.last_event_id();
        co_return r;
    }

    static asio::awaitable<void> post(std::shared_ptr<HttpTransport> self, std::string body,
                                      std::optional<std::int64_t> id, SendOptions options = {}) {
        bool legacy = self->mode_ == Mode::legacy;
        bool probing = self->mode_ == Mode::probing && !options.probe;
        Target t = legacy ? self->endpoint_ : self->base_;
        Reply r;
        std::string error;
        try {
            auto* raw = self.get();
            r = co_await self->exchange(
                t, http::verb::post, body,
                [raw, id](const SseEvent& e) {
                    // A request answered or given up (cancelled, a replaced subscriptions/listen):
                    // its stream is dropped and nothing more of it delivered.
                    if (id && !raw->ev_->awaiting(*id)) return false;
                    if (e.type == "message") raw->deliver(e.data, id);
                    return !id || raw->ev_->awaiting(*id);
                },
                std::nullopt, {}, std::move(options.headers), id);
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (self->closed_ || self->failed_) co_return;
        if (!error.empty()) {
            if (id && !self->ev_->awaiting(*id)) co_return;  // abandoned: its socket was closed on purpose
            self->fail("cannot reach " + t.host_header + ": " + error);
            co_return;
        }
        bool ok = r.status / 100 == 2;
        if (legacy) {
            if (!ok && id)
                self->ev_->on_send_failed(*id, "HTTP " + std::to_string(r.status) + " " + r.reason + " from " + t.path);
            co_return;
        }
        if (ok) {
            if (probing) self->mode_ = Mode::streamable;
            if (!r.sse) self->deliver(r.body, id);
            else if (id && self->ev_->awaiting(*id)) {  // the stream broke before its answer
                co_await resume(self, *id, std::move(r.last_event_id), r.retry);
                co_return;
            }
            // Answered by now: a no-op.
            if (id && !self->closed_ && !self->failed_)
                self->ev_->on_send_failed(*id, r.sse ? "the upstream ended the response stream without answering"
                                                     : "the upstream's HTTP answer carried no JSON-RPC response");
            co_return;
        }
        if (is_rpc_response_with_id(r.body)) {  // a JSON-RPC error carried by an HTTP error status
            if (probing) self->mode_ = Mode::streamable;
            self->deliver(r.body, id);
            co_return;
        }
        if (probing && (r.status == 400 || r.status == 404 || r.status == 405)) {
            self->start_legacy(std::move(body), id, r.status);
            co_return;
        }
        if (r.status == 404 && !self->session_id_.empty()) {
            self->fail("the upstream ended the session (HTTP 404)");
            co_return;
        }
        if (id) {
            auto m = rpc_error_message(r.body);
            std::string hint;
            if (r.status == 401) {  // MCP authorization: the tokens are missing, expired or revoked
                hint = " (the server requires OAuth authorization: run `coffer mcp login " + self->cfg_->name + "`)";
                self->ev_->on_unauthorized();
            }
            self->ev_->on_send_failed(*id, "HTTP " + std::to_string(r.status) + " " + r.reason +
                                               (m.empty() ? (r.body.empty() ? "" : ": " + snippet(r.body)) : ": " + m) + hint);
        }
    }

    void start_legacy(std::string body, std::optional<std::int64_t> id, unsigned post_status) {
        mode_ = Mode::legacy_connecting;
        legacy_queue_.emplace_back(std::move(body), id);
        asio::co_spawn(rt_.io(), legacy_stream(shared_from_this(), post_status), asio::detached);
    }

    static asio::awaitable<void> legacy_stream(std::shared_ptr<HttpTransport> self, unsigned post_status) {
        auto* raw = self.get();
        Reply r;
        std::string error;
        try {
            r = co_await self->exchange(self->base_, http::verb::get, {}, [raw](const SseEvent& e) {
                if (raw->closed_ || raw->failed_) return false;
                if (e.type == "endpoint") raw->legacy_endpoint(std::string(e.data));
                else if (e.type == "message") raw->deliver(e.data, std::nullopt);
                return true;
            });
        } catch (const std::exception& e) {
            error = e.what();
        }
        if (self->closed_ || self->failed_) co_return;
        if (self->mode_ == Mode::legacy_connecting) {
            self->fail("the upstream answered POST with HTTP " + std::to_string(post_status) + " and GET with " +
                       (error.empty() ? "HTTP " + std::to_string(r.status) : error) +
                       ": it speaks neither Streamable HTTP nor HTTP+SSE");
            co_return;
        }
        self->fail(error.empty() ? "the upstream closed its SSE stream" : "the SSE stream broke: " + error);
    }

    void legacy_endpoint(const std::string& ref_text) {
        if (mode_ != Mode::legacy_connecting) return;
        auto base = boost::urls::parse_uri(base_.url);
        auto ref = boost::urls::parse_uri_reference(ref_text);
        std::string why;
        std::optional<Target> t;
        if (base && ref) {
            boost::urls::url dest;
            if (boost::urls::resolve(*base, *ref, dest)) t = to_target(dest.buffer(), why);
            else why = "cannot resolve the endpoint " + ref_text;
        } else {
            why = "invalid endpoint " + ref_text;
        }
        if (!t) {
            fail("HTTP+SSE: " + why);
            return;
        }
        endpoint_ = std::move(*t);
        mode_ = Mode::legacy;
        auto queue = std::move(legacy_queue_);
        legacy_queue_.clear();
        for (auto& [body, id] : queue)
            asio::co_spawn(rt_.io(), post(shared_from_this(), std::move(body), id), asio::detached);
    }

    // Streamable HTTP: the optional GET stream for messages the server sends unprompted
    // (list_changed, requests). Reconnects with a bounded backoff, resuming after the last event
    // seen when the upstream numbers its events (nothing it still buffers is lost); stops on
    // 404/405.
    static asio::awaitable<void> get_stream(std::shared_ptr<HttpTransport> self) {
        auto* raw = self.get();
        int failures = 0;
        std::string last_id;
        while (!self->closed_ && !self->failed_) {
            bool got = false;
            long retry_ms = 1000;
            Reply r;
            bool broke = false;
            try {
                r = co_await self->exchange(
                    self->base_, http::verb::get, {},
                    [raw, &got, &retry_ms](const SseEvent& e) {
                        if (e.retry) retry_ms = *e.retry;
                        if (e.type == "message" && !e.data.empty()) {
                            got = true;
                            raw->deliver(e.data, std::nullopt);
                        }
                        return true;
                    },
                    std::nullopt, last_id);
            } catch (const std::exception&) {
                broke = true;
            }
            if (self->closed_ || self->failed_) co_return;
            if (!broke && (r.status / 100 != 2 || !r.sse)) {
                if (!last_id.empty() && r.status != 405) {  // that stream is gone: start a new one
                    last_id.clear();
                    continue;
                }
                co_return;  // no stream offered
            }
            // The stream's last id, also from an event without data (once the head is read,
            // exchange() returns whatever happens to the stream: the reply has every id seen).
            if (!r.last_event_id.empty()) last_id = r.last_event_id;
            if (r.retry) retry_ms = *r.retry;
            failures = got ? 0 : failures + 1;
            if (failures > 8) co_return;
            long wait = retry_ms;
            for (int i = 1; i < failures && wait < 30000; ++i) wait *= 2;
            asio::steady_timer timer(self->rt_.io());
            CloseGuard guard(*self, [&timer] { timer.cancel(); });
            timer.expires_after(std::chrono::milliseconds(std::min(wait, 30000L)));
            boost::system::error_code ec;
            co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
        }
    }

    // The response stream of request `id` ended before its answer: resume it with GET and
    // Last-Event-ID, as often as the upstream keeps bringing new events, respecting its `retry`.
    // The request fails only when resumption is impossible (no event id, the upstream refuses, or
    // it stops making progress).
    static asio::awaitable<void> resume(std::shared_ptr<HttpTransport> self, std::int64_t id, std::string last_id,
                                        std::optional<long> retry) {
        auto* raw = self.get();
        int fruitless = 0;
        std::string why = "the upstream gave no event id to resume it from";
        while (!last_id.empty() && fruitless < kMaxFruitlessResumes) {
            long wait = retry.value_or(0);
            if (fruitless > 0) wait = std::min(std::max(wait, 250L) << (fruitless - 1), 5000L);
            if (wait > 0) {
                asio::steady_timer timer(self->rt_.io());
                CloseGuard guard(*self, [&timer] { timer.cancel(); });
                timer.expires_after(std::chrono::milliseconds(wait));
                boost::system::error_code ec;
                co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
            }
            if (self->closed_ || self->failed_ || !self->ev_->awaiting(id)) co_return;
            Reply r;
            try {
                r = co_await self->exchange(
                    self->base_, http::verb::get, {},
                    [raw, id](const SseEvent& e) {
                        if (e.type == "message") raw->deliver(e.data, id);
                        return raw->ev_->awaiting(id);  // answered: drop the connection
                    },
                    std::nullopt, last_id);
            } catch (const std::exception& e) {
                why = e.what();
                ++fruitless;
                continue;
            }
            if (self->closed_ || self->failed_ || !self->ev_->awaiting(id)) co_return;
            if (r.status / 100 != 2 || !r.sse) {
                auto m = rpc_error_message(r.body);
                why = "the upstream answered HTTP " + std::to_string(r.status) + " " + r.reason + (m.empty() ? "" : ": " + m);
                break;
            }
            if (r.retry) retry = r.retry;
            if (!r.last_event_id.empty() && r.last_event_id != last_id) {
                last_id = std::move(r.last_event_id);
                fruitless = 0;
            } else {
                why = "the resumed stream brought nothing new";
                ++fruitless;
            }
        }
        if (self->closed_ || self->failed_ || !self->ev_->awaiting(id)) co_return;
        self->ev_->on_send_failed(id, "the response stream ended before the answer and could not be resumed: " + why);
    }

    static asio::awaitable<void> delete_session(std::shared_ptr<HttpTransport> self) {
        try {
            co_await self->exchange(self->base_, http::verb::delete_, {}, {}, std::chrono::milliseconds(2000));
        } catch (...) {
        }
    }

    Runtime& rt_;
    std::shared_ptr<const ServerConfig> cfg_;
    TransportEvents* ev_;
    ssl::context ssl_;
    Target base_, endpoint_;
    Mode mode_ = Mode::probing;
    std::string session_id_, proto_;
    bool closed_ = false, failed_ = false;
    std::vector<std::pair<std::string, std::optional<std::int64_t>>> legacy_queue_;
    std::map<std::uint64_t, std::function<void()>> closers_;
    std::map<std::int64_t, std::uint64_t> owners_;  // our request id → its exchange's closer
    std::uint64_t next_closer_ = 0;
};

asio::awaitable<void> reachable(Runtime& rt, Target t, std::chrono::milliseconds limit,
                                std::function<void(std::string)> done) {
    std::string error;
    try {
        auto endpoints = co_await resolve(rt, t.host, t.port);
        beast::tcp_stream s(rt.io());
        s.expires_after(limit);
        co_await s.async_connect(endpoints, use_awaitable);
    } catch (const std::exception& e) {
        error = "cannot reach " + t.host_header + ": " + e.what();
    }
    done(error);
}

}  // namespace

void check_reachable(Runtime& rt, const std::string& url, std::chrono::milliseconds limit,
                     std::function<void(std::string error)> done) {
    if (!rt.on_io_thread()) {  // called from the host's service thread: start it on the I/O thread
        rt.post([&rt, url, limit, done] { check_reachable(rt, url, limit, done); });
        return;
    }
    std::string why;
    auto t = to_target(url, why);
    if (!t) {
        asio::post(rt.io(), [done, why] { done(why); });
        return;
    }
    asio::co_spawn(rt.io(), reachable(rt, std::move(*t), limit, std::move(done)), asio::detached);
}

std::shared_ptr<Transport> make_http_transport(Runtime& rt, std::shared_ptr<const ServerConfig> cfg,
                                               TransportEvents& events) {
    return std::make_shared<HttpTransport>(rt, std::move(cfg), events);
}

}  // namespace coffer::mcp_server
