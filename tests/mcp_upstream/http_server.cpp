#include "http_server.hpp"

#include "modern.hpp"
#include "oauth_standin.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <deque>
#include <iostream>
#include <map>

namespace coffer::test_upstream {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using asio::use_awaitable;
using Socket = std::shared_ptr<tcp::socket>;

// Raw writes on a socket, in order; closes it after the queue drains when asked to.
class Writer : public std::enable_shared_from_this<Writer> {
public:
    explicit Writer(Socket s) : s_(std::move(s)) {}
    void write(std::string bytes) {
        if (closed_) return;
        q_.push_back(std::move(bytes));
        pump();
    }
    void close_after() {
        closing_ = true;
        pump();
    }
    bool closed() const { return closed_; }
    void mark_closed() { closed_ = true; }

private:
    void pump() {
        if (writing_ || closed_) return;
        if (q_.empty()) {
            if (closing_) {
                closed_ = true;
                boost::system::error_code ec;
                s_->shutdown(tcp::socket::shutdown_both, ec);
                s_->close(ec);
            }
            return;
        }
        writing_ = true;
        auto self = shared_from_this();
        asio::async_write(*s_, asio::buffer(q_.front()), [self](boost::system::error_code ec, std::size_t) {
            self->writing_ = false;
            if (ec) {
                self->closed_ = true;
                return;
            }
            self->q_.pop_front();
            self->pump();
        });
    }
    Socket s_;
    std::deque<std::string> q_;
    bool writing_ = false, closing_ = false, closed_ = false;
};

std::string head(int status, const char* reason, const std::string& content_type, const std::string& session,
                 std::optional<std::size_t> length, const std::string& extra = {}) {
    std::string h = "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n";
    if (!content_type.empty()) h += "Content-Type: " + content_type + "\r\n";
    if (!session.empty()) h += "Mcp-Session-Id: " + session + "\r\n";
    if (length) h += "Content-Length: " + std::to_string(*length) + "\r\n";
    if (content_type == "text/event-stream") h += "Cache-Control: no-cache\r\n";
    h += extra;
    h += "Connection: close\r\n\r\n";
    return h;
}

void simple(const Socket& s, int status, const char* reason, const std::string& body = {}, const std::string& session = {}) {
    auto w = std::make_shared<Writer>(s);
    w->write(head(status, reason, body.empty() ? "" : "application/json", session, body.size()) + body);
    w->close_after();
}

// An SSE stream: every message is one `message` event; the stream ends after the final one
// when `end_on_final`.
class SsePeer : public Peer {
public:
    SsePeer(std::shared_ptr<Writer> w, bool end_on_final) : w_(std::move(w)), end_on_final_(end_on_final) {}
    void send(const std::string& message, bool final) override {
        w_->write("event: message\ndata: " + message + "\n\n");
        if (final && end_on_final_) w_->close_after();
    }
    void event(const std::string& type, const std::string& data) { w_->write("event: " + type + "\ndata: " + data + "\n\n"); }

private:
    std::shared_ptr<Writer> w_;
    bool end_on_final_;
};

// A single JSON answer: the final message becomes the body.
class JsonPeer : public Peer {
public:
    JsonPeer(Socket s, std::string session) : s_(std::move(s)), session_(std::move(session)) {}
    void send(const std::string& message, bool final) override {
        if (final && !done_) {
            done_ = true;
            simple(s_, 200, "OK", message, session_);
        }
    }

private:
    Socket s_;
    std::string session_;
    bool done_ = false;
};

// One SSE stream of Streamable HTTP (a POST's answer, or the GET stream). With --resumable its
// events carry ids `<stream>-<n>` and are kept, so a GET with Last-Event-ID replays what followed
// on a new connection; with --cut-stream-after N its first connection is closed after N events
// (a `retry` field first) without ending the stream. Messages sent while no connection carries
// the stream are kept for a resumption (resumable) or lost.
class Stream : public Peer {
public:
    Stream(const Options& o, int number, std::shared_ptr<Writer> w, bool end_on_final)
        : opts_(o), number_(number), w_(std::move(w)), end_on_final_(end_on_final) {
        if (opts_.resumable) write("id: " + std::to_string(number_) + "-0\ndata:\n\n");
    }
    void send(const std::string& message, bool final) override {
        std::string ev;
        if (opts_.resumable) ev = "id: " + std::to_string(number_) + "-" + std::to_string(++seq_) + "\n";
        ev += "event: message\ndata: " + message + "\n\n";
        if (opts_.resumable) kept_.emplace_back(seq_, ev);
        if (final && end_on_final_) ended_ = true;
        write(ev);
    }
    // A new connection for this stream, after event `after`.
    void resume(std::shared_ptr<Writer> w, long after) {
        w_ = std::move(w);
        int replayed = 0;
        for (auto& [seq, ev] : kept_)
            if (seq > after) {
                w_->write(ev);
                ++replayed;
            }
        std::cerr << "resumed stream " << number_ << " after event " << after << ": " << replayed << " replayed"
                  << std::endl;
        if (ended_) w_->close_after();
    }

private:
    void write(const std::string& ev) {
        if (!w_ || w_->closed()) return;
        w_->write(ev);
        ++written_;
        if (ended_) {
            w_->close_after();
        } else if (!cut_ && opts_.cut_after > 0 && written_ >= opts_.cut_after) {
            cut_ = true;
            w_->write("retry: " + std::to_string(opts_.cut_retry_ms) + "\n\n");
            w_->close_after();
            std::cerr << "cut stream " << number_ << " after " << written_ << " events" << std::endl;
        }
    }

    const Options& opts_;
    int number_;
    std::shared_ptr<Writer> w_;
    bool end_on_final_;
    long seq_ = 0;
    int written_ = 0;
    bool cut_ = false, ended_ = false;
    std::vector<std::pair<long, std::string>> kept_;
};

// The answer to a modern (2026-07-28) request: a single JSON body when the response comes first
// (its HTTP status from its error: 400, 404 or 200), else an SSE stream that the final message
// ends (a subscriptions/listen never gets one).
class ModernHttpPeer : public Peer {
public:
    explicit ModernHttpPeer(std::shared_ptr<Writer> w) : w_(std::move(w)) {}
    void send(const std::string& message, bool final) override {
        if (done_) return;
        if (!streaming_ && final) {
            done_ = true;
            int status = http_status_of(message);
            const char* reason = status == 400 ? "Bad Request" : status == 404 ? "Not Found" : "OK";
            w_->write(head(status, reason, "application/json", "", message.size()) + message);
            w_->close_after();
            return;
        }
        if (!streaming_) {
            streaming_ = true;
            w_->write(head(200, "OK", "text/event-stream", "", std::nullopt, "X-Accel-Buffering: no\r\n"));
        }
        w_->write("event: message\ndata: " + message + "\n\n");
        if (final) {
            done_ = true;
            w_->close_after();
        }
    }
    bool open() const override { return !done_ && !w_->closed(); }
    bool streaming() const { return streaming_ && !done_; }

private:
    std::shared_ptr<Writer> w_;
    bool streaming_ = false, done_ = false;
};

// The headers a modern request mirrors from its body, names lower-cased; a header sent on several
// lines is their values joined by ", " (RFC 9110), so it matches no body value.
json::object mcp_headers(const http::request<http::string_body>& req) {
    json::object h;
    for (auto& f : req) {
        std::string name(f.name_string());
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        bool mirrored = name == "mcp-method" || name == "mcp-name" || name == "mcp-protocol-version" ||
                        name.rfind("mcp-param-", 0) == 0;
        if (!mirrored) continue;
        std::string value(f.value());
        if (auto* seen = h.if_contains(name)) value = std::string(seen->as_string()) + ", " + value;
        h[name] = value;
    }
    return h;
}

// Drops whatever it gets (the client sent a notification or response: nothing relates to it).
class NullPeer : public Peer {
public:
    void send(const std::string&, bool) override {}
};

// Forwards to the session's GET stream (a stream without a connection drops or keeps it).
class BroadcastPeer : public Peer {
public:
    void send(const std::string& message, bool final) override {
        if (stream) stream->send(message, final);
    }
    std::shared_ptr<Peer> stream;
};

struct McpSession {
    std::unique_ptr<Server> server;
    std::shared_ptr<BroadcastPeer> broadcast = std::make_shared<BroadcastPeer>();
    std::map<int, std::shared_ptr<Stream>> streams;  // by number, while they may be resumed
};

class HttpServer {
public:
    HttpServer(asio::io_context& io, Options opts, bool legacy, unsigned short port)
        : io_(io), opts_(std::move(opts)), legacy_(legacy) {
        if (opts_.modern || opts_.dual_era) {  // one Server answers every modern request (no sessions)
            modern_ = std::make_unique<Server>(io_, opts_);
            modern_->share_stats(stats_);
        }
        if (opts_.oauth) oauth_.emplace("http://127.0.0.1:" + std::to_string(port), opts_.oauth_ttl, opts_.oauth_log,
                                       opts_.oauth_claimed_ttl);
    }

    asio::awaitable<void> accept(tcp::acceptor& acc) {
        for (;;) {
            auto s = std::make_shared<tcp::socket>(co_await acc.async_accept(use_awaitable));
            asio::co_spawn(io_, serve(s), asio::detached);
        }
    }

private:
    asio::awaitable<void> serve(Socket s) {
        beast::flat_buffer buf;
        http::request<http::string_body> req;
        try {
            co_await http::async_read(*s, buf, req, use_awaitable);
        } catch (...) {
            co_return;
        }
        std::string target(req.target());
        std::string path = target.substr(0, target.find('?'));
        std::string sid(req["Mcp-Session-Id"]);
        if (oauth_) {
            auto q = target.find('?');
            auto r = oauth_->handle(std::string(req.method_string()), path, q == std::string::npos ? "" : target.substr(q + 1),
                                    req.body(), std::string(req[http::field::content_type]));
            if (!r && path == "/mcp") r = oauth_->check(std::string(req[http::field::authorization]));
            if (r) {
                auto w = std::make_shared<Writer>(s);
                std::string h = "HTTP/1.1 " + std::to_string(r->status) + " " + r->reason + "\r\n";
                if (!r->content_type.empty()) h += "Content-Type: " + r->content_type + "\r\n";
                w->write(h + r->extra_headers + "Content-Length: " + std::to_string(r->body.size()) +
                         "\r\nConnection: close\r\n\r\n" + r->body);
                w->close_after();
                co_return;
            }
        }
        for (auto& [name, digest] : opts_.required_headers) {
            auto it = req.find(name);
            if (it == req.end() || sha256_hex(std::string_view(it->value().data(), it->value().size())) != digest)
                co_return simple(s, 401, "Unauthorized",
                                 R"({"error":"missing or wrong )" + name + R"( header"})");
        }
        if (legacy_) co_return legacy(s, req, path, target);
        if (path != "/mcp") co_return simple(s, 404, "Not Found");
        // 2026-07-28 has no GET stream and no sessions to delete (with --dual-era: without a session id).
        if (modern_ && req.method() != http::verb::post && (opts_.modern || sid.empty()))
            co_return simple(s, 405, "Method Not Allowed");
        if (req.method() == http::verb::delete_) {
            sessions_.erase(sid);
            co_return simple(s, 200, "OK");
        }
        if (req.method() == http::verb::get) {
            auto it = sessions_.find(sid);
            if (it == sessions_.end()) co_return simple(s, sid.empty() ? 400 : 404, sid.empty() ? "Bad Request" : "Not Found");
            auto& ms = it->second;
            std::string last(req["Last-Event-ID"]);  // "<stream>-<event>"
            std::shared_ptr<Stream> resumed;
            long after = 0;
            if (!last.empty()) {
                auto dash = last.find('-');
                auto found = dash == std::string::npos ? ms.streams.end() : ms.streams.find(std::atoi(last.c_str()));
                if (found == ms.streams.end()) co_return simple(s, 404, "Not Found");
                resumed = found->second;
                after = std::atol(last.c_str() + dash + 1);
            }
            auto w = std::make_shared<Writer>(s);
            w->write(head(200, "OK", "text/event-stream", "", std::nullopt));
            if (resumed) {
                resumed->resume(w, after);
            } else {
                auto stream = open_stream(ms, w, false);
                ms.broadcast->stream = stream;
            }
            co_await watch(s, w);
            co_return;
        }
        if (req.method() != http::verb::post) co_return simple(s, 405, "Method Not Allowed");
        boost::system::error_code ec;
        auto v = json::parse(req.body(), ec);
        if (ec || !v.is_object()) co_return simple(s, 400, "Bad Request", R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}})");
        auto& o = v.as_object();
        if (modern_ && is_modern(req, o, sid)) {
            co_await serve_modern(s, req, o);
            co_return;
        }
        auto* method = o.if_contains("method");
        bool is_request = method && o.contains("id");
        if (is_request && method->is_string() && method->as_string() == "initialize") {
            sid = "session-" + std::to_string(next_session_++);
            auto& ms = sessions_[sid];
            ms.server = std::make_unique<Server>(io_, opts_);
            ms.server->set_broadcast(ms.broadcast);
            ms.server->share_stats(stats_);
        }
        auto it = sessions_.find(sid);
        if (it == sessions_.end()) co_return simple(s, sid.empty() ? 400 : 404, sid.empty() ? "Bad Request" : "Not Found");
        if (!is_request) {
            it->second.server->handle(req.body(), std::make_shared<NullPeer>(), Server::Era::Legacy);
            co_return simple(s, 202, "Accepted");
        }
        std::shared_ptr<Peer> peer;
        if (method->as_string() == "tools/call") {  // may stream notifications first
            auto w = std::make_shared<Writer>(s);
            w->write(head(200, "OK", "text/event-stream", sid, std::nullopt));
            peer = open_stream(it->second, w, true);
        } else {
            peer = std::make_shared<JsonPeer>(s, sid);
        }
        it->second.server->handle(req.body(), peer, Server::Era::Legacy);
    }

    // --modern: every POST; --dual-era: one without a known session that is not initialize and
    // says 2026-07-28 in its MCP-Protocol-Version header (without Mcp-Session-Id) or in its body.
    bool is_modern(const http::request<http::string_body>& req, const json::object& o, const std::string& sid) const {
        if (opts_.modern) return true;
        if (sessions_.count(sid)) return false;
        auto* m = o.if_contains("method");
        std::string method = m && m->is_string() ? std::string(m->as_string()) : "";
        if (method == "initialize") return false;
        if (sid.empty() && req["MCP-Protocol-Version"] == kModernVersion) return true;
        auto* p = o.if_contains("params");
        return looks_modern(method, p && p->is_object() ? p->as_object() : json::object{});
    }

    // No session: the one modern Server answers, after checking the Mcp-* headers against the body.
    asio::awaitable<void> serve_modern(Socket s, const http::request<http::string_body>& req, const json::object& o) {
        auto headers = mcp_headers(req);
        if (!o.contains("method") || !o.contains("id")) {  // a notification
            modern_->handle(req.body(), std::make_shared<NullPeer>(), Server::Era::Modern, &headers);
            co_return simple(s, 202, "Accepted");
        }
        auto w = std::make_shared<Writer>(s);
        auto peer = std::make_shared<ModernHttpPeer>(w);
        modern_->handle(req.body(), peer, Server::Era::Modern, &headers);
        if (peer->streaming()) co_await watch(s, w);  // a listen (or a call still streaming): notice the client leave
    }

    void legacy(const Socket& s, const http::request<http::string_body>& req, const std::string& path,
                const std::string& target) {
        if (path == "/sse" && req.method() == http::verb::get) {
            std::string sid = "legacy-" + std::to_string(next_session_++);
            auto w = std::make_shared<Writer>(s);
            w->write(head(200, "OK", "text/event-stream", "", std::nullopt));
            auto stream = std::make_shared<SsePeer>(w, false);
            stream->event("endpoint", "/messages?session=" + sid);
            auto& ms = sessions_[sid];
            ms.server = std::make_unique<Server>(io_, opts_);
            ms.server->share_stats(stats_);
            ms.broadcast->stream = stream;
            ms.server->set_broadcast(ms.broadcast);
            asio::co_spawn(io_, watch(s, w), asio::detached);
            return;
        }
        if (path == "/messages" && req.method() == http::verb::post) {
            auto q = target.find("session=");
            std::string sid = q == std::string::npos ? "" : target.substr(q + 8);
            auto it = sessions_.find(sid);
            if (it == sessions_.end()) return simple(s, 404, "Not Found");
            it->second.server->handle(req.body(), it->second.broadcast);
            return simple(s, 202, "Accepted");
        }
        simple(s, 405, "Method Not Allowed");
    }

    std::shared_ptr<Stream> open_stream(McpSession& ms, std::shared_ptr<Writer> w, bool end_on_final) {
        int number = next_stream_++;
        auto stream = std::make_shared<Stream>(opts_, number, std::move(w), end_on_final);
        if (opts_.resumable) {
            ms.streams[number] = stream;
            while (ms.streams.size() > 64) ms.streams.erase(ms.streams.begin());
        }
        return stream;
    }

    // Notices when the client goes away from a long-lived stream.
    asio::awaitable<void> watch(Socket s, std::shared_ptr<Writer> w) {
        char b[256];
        try {
            for (;;) co_await s->async_read_some(asio::buffer(b), use_awaitable);
        } catch (...) {
        }
        w->mark_closed();
    }

    asio::io_context& io_;
    Options opts_;
    bool legacy_;
    std::optional<OAuthStandIn> oauth_;
    std::map<std::string, McpSession> sessions_;
    std::shared_ptr<ModernStats> stats_ = std::make_shared<ModernStats>();
    std::unique_ptr<Server> modern_;  // with --modern or --dual-era
    int next_session_ = 1;
    int next_stream_ = 1;
};

}  // namespace

int run_http(asio::io_context& io, const Options& opts, unsigned short port, bool legacy) {
    tcp::acceptor acc(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    std::cout << "PORT " << acc.local_endpoint().port() << std::endl;
    HttpServer server(io, opts, legacy, acc.local_endpoint().port());
    asio::co_spawn(io, server.accept(acc), asio::detached);
    io.run();
    return 0;
}

}  // namespace coffer::test_upstream
