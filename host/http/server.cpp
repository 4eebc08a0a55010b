// The HTTP/1.1 server (see server.hpp): per connection, a request head read under the header
// deadline and checked for unambiguous framing before its body is read under the body deadline;
// keep-alive connections wait for the next request under the idle deadline; while a request is
// handled or its response streams there is no deadline. Admission (a cap on open connections,
// room made by closing the connection idle the longest, accept back-off when descriptors run out)
// is in admission.hpp, the framing rules in framing.hpp.
#include "http/server.hpp"

#include "core/log.hpp"
#include "http/admission.hpp"
#include "http/framing.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <atomic>
#include <deque>
#include <optional>
#include <string_view>

namespace coffer::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kMaxQueuedBytes = 32u << 20;       // a client this far behind a stream is dropped
constexpr std::size_t kMaxPipelinedBytes = 1u << 20;     // read-ahead kept while a request is pending
constexpr std::size_t kMaxDrainBytes = 64u << 20;        // discarded after an early error response
constexpr auto kWriteTimeout = std::chrono::seconds(30);
constexpr auto kLingerTimeout = std::chrono::seconds(3);
constexpr auto kWarnEvery = std::chrono::seconds(10);    // at most one warning of a kind per period
constexpr int kRetriesAfterEviction = 4;                 // accept() retried at once after making room
constexpr int kRetriesAfterTransient = 64;               // … after per-connection errors, in a row
// Out of descriptors, a connection is closed for room only once it has been idle this long: one
// just accepted has not yet had the time to send its request (its client may be the one waiting).
constexpr std::chrono::milliseconds kEvictionGrace{100};

void parse_target(Request& r) {
    auto u = boost::urls::parse_origin_form(r.target);
    if (!u) {
        r.path = r.target.substr(0, r.target.find('?'));
        return;
    }
    r.path = std::string(u->path());
    for (auto p : u->params()) r.query[std::string(p.key)] = std::string(p.value);
}

std::string head(const Response& res, bool chunked, bool close, std::size_t length) {
    std::string out = "HTTP/1.1 " + std::to_string(res.status) + " ";
    out += std::string(bhttp::obsolete_reason(bhttp::int_to_status(static_cast<unsigned>(res.status))));
    out += "\r\nServer: coffer\r\nContent-Type: " + res.content_type + "\r\nCache-Control: no-store\r\n";
    for (auto& [k, v] : res.headers) out += k + ": " + v + "\r\n";
    if (res.on_stream) out += "X-Accel-Buffering: no\r\n";
    if (chunked) out += "Transfer-Encoding: chunked\r\n";
    else if (!res.on_stream) out += "Content-Length: " + std::to_string(length) + "\r\n";
    out += close ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n";
    return out;
}

std::string chunk(const std::string& data) {
    char size[20];
    int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    std::string out(size, static_cast<std::size_t>(n));
    out += data;
    out += "\r\n";
    return out;
}

// A warning that may fire thousands of times a second under a flood: logged at most once per
// period, with how many times it happened since.
class Throttled {
public:
    void warn(std::string_view msg, boost::json::object fields) {
        ++count_;
        auto now = std::chrono::steady_clock::now();
        if (last_ != std::chrono::steady_clock::time_point{} && now - last_ < kWarnEvery) return;
        last_ = now;
        fields["times"] = count_;
        count_ = 0;
        core::log::warn(msg, fields);
    }

private:
    std::chrono::steady_clock::time_point last_{};
    std::uint64_t count_ = 0;
};

// What every connection of one server shares (network thread only).
struct Shared {
    Shared(Handler h, ErrorResponder e, Limits l)
        : handler(std::move(h)), on_error(std::move(e)), limits(l), admission(l.max_connections) {}
    const Handler handler;
    const ErrorResponder on_error;
    const Limits limits;
    Admission admission;
    Throttled cap_reached, all_busy, accept_failed;
};

class Connection;

// One request/response exchange on a connection: the handler's view of the client (Peer) and,
// once the response streams, its body (Stream).
class Exchange final : public Peer, public Stream, public std::enable_shared_from_this<Exchange> {
public:
    Exchange(std::weak_ptr<Connection> conn, asio::any_io_executor exec) : conn_(std::move(conn)), exec_(std::move(exec)) {}

    void on_disconnect(std::function<void()> fn) override;
    bool connected() const override { return !disconnected_; }
    void write(std::string data) override;
    void end() override;
    bool open() const override { return streaming_ && !ended_ && !disconnected_; }
    std::size_t backlog() const override;
    void write_here(std::string data) override;

    // Network thread only.
    void disconnected() {
        if (disconnected_.exchange(true)) return;
        auto fns = std::move(callbacks_);
        callbacks_.clear();
        for (auto& fn : fns) {
            try {
                fn();
            } catch (...) {
            }
        }
    }
    void finished() {
        over_ = true;
        callbacks_.clear();
    }

    std::atomic<bool> disconnected_{false}, streaming_{false}, ended_{false};
    bool over_ = false;

private:
    std::weak_ptr<Connection> conn_;
    asio::any_io_executor exec_;
    std::vector<std::function<void()>> callbacks_;
};

std::atomic<std::uint64_t> g_next_connection{1};

class Connection final : public Occupant, public std::enable_shared_from_this<Connection> {
public:
    Connection(tcp::socket s, std::shared_ptr<Shared> shared)
        : stream_(std::move(s)), timer_(stream_.get_executor()), shared_(std::move(shared)),
          number_(g_next_connection.fetch_add(1, std::memory_order_relaxed)) {}
    ~Connection() override { leave(); }

    void start() {
        seat_ = shared_->admission.enter(*this);
        read();
    }

    // Occupant: a handler has the request, or the response streams.
    bool busy() const override { return ex_ && !ex_->over_; }
    void evict() override { close(); }

    void deliver(const std::shared_ptr<Exchange>& ex, Response res) {
        if (ex != ex_ || ex->over_ || ex->streaming_ || ex->disconnected_ || closed_) return;
        bool close_now = res.close || !keep_alive_;
        if (res.on_stream) {
            chunked_ = http11_;
            ex->streaming_ = true;
            queue(head(res, chunked_, close_now || !chunked_, 0));
            stream_close_ = close_now || !chunked_;
            try {
                res.on_stream(ex);
            } catch (...) {
                stream_end(ex);
            }
            return;
        }
        ex->finished();
        rested();
        queue(head(res, false, close_now, res.body.size()) + res.body);
        after_ = close_now ? After::linger : After::next;
        if (!writing_) write_next();
    }

    void stream_write(const std::shared_ptr<Exchange>& ex, const std::string& data) {
        if (ex != ex_ || !ex->streaming_ || ex->ended_ || ex->disconnected_ || data.empty() || closed_) return;
        queue(chunked_ ? chunk(data) : data);
        if (queued_ > kMaxQueuedBytes) return lost();
    }

    std::size_t queued_bytes() const { return queued_; }  // network thread

    void stream_end(const std::shared_ptr<Exchange>& ex) {
        if (ex != ex_ || !ex->streaming_ || ex->ended_.exchange(true) || closed_) return;
        ex->finished();
        rested();
        if (chunked_) queue("0\r\n\r\n");
        after_ = stream_close_ ? After::linger : After::next;
        if (!writing_) write_next();
    }

private:
    enum class After { none, next, linger };

    const Limits& limits() const { return shared_->limits; }

    // The next request: the first one's head must be complete within the header deadline of
    // accept; on a kept-alive connection, its first byte must come within the idle deadline.
    void read() {
        if (closed_) return;
        parser_.emplace();
        parser_->body_limit(limits().max_body);
        parser_->header_limit(static_cast<std::uint32_t>(limits().max_header));
        if (served_ && buffer_.size() == 0) return await_request();
        read_head();
    }

    void await_request() {
        stream_.expires_after(limits().idle_timeout);
        stream_.async_read_some(buffer_.prepare(16384), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
            self->stream_.expires_never();
            if (ec || self->closed_) return self->close();
            self->buffer_.commit(n);
            self->read_head();
        });
    }

    void read_head() {
        stream_.expires_after(limits().header_timeout);
        bhttp::async_read_header(stream_, buffer_, *parser_,
                                 [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_head(ec); });
    }

    // The head is in: refuse ambiguous framing before a byte of the body is read (so a body is
    // never taken for the next request), then read the body under its own deadline.
    void on_head(beast::error_code ec) {
        stream_.expires_never();
        if (ec) return failed(ec);
        const auto& msg = parser_->get();
        Head h;
        h.version = msg.version();
        for (const auto& f : msg)
            h.fields.emplace_back(std::string_view(f.name_string().data(), f.name_string().size()),
                                  std::string_view(f.value().data(), f.value().size()));
        if (auto why = framing_error(h))
            return refuse(shared_->on_error(400, "BAD_REQUEST", "ambiguous HTTP request refused: " + *why,
                                            std::string(msg.target())));
        if (parser_->is_done()) return dispatch();
        stream_.expires_after(limits().body_timeout);
        bhttp::async_read(stream_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
    }

    void on_body(beast::error_code ec) {
        stream_.expires_never();
        if (ec) return failed(ec);
        dispatch();
    }

    void failed(beast::error_code ec) {
        if (closed_ || ec == bhttp::error::end_of_stream || ec == asio::error::operation_aborted ||
            ec == beast::error::timeout || ec == asio::error::connection_reset || ec == asio::error::eof)
            return close();
        std::string target = parser_ ? std::string(parser_->get().target()) : std::string();  // set by the request line
        if (ec == bhttp::error::body_limit)
            return refuse(shared_->on_error(413, "PAYLOAD_TOO_LARGE", "request body exceeds the 4 MiB limit", target));
        if (ec == bhttp::error::header_limit)
            return refuse(shared_->on_error(431, "BAD_REQUEST", "request headers are too large", target));
        refuse(shared_->on_error(400, "BAD_REQUEST", "malformed HTTP request: " + ec.message(), target));
    }

    void dispatch() {
        auto msg = parser_->release();
        Request req;
        req.method = std::string(msg.method_string());
        req.target = std::string(msg.target());
        parse_target(req);
        for (auto& f : msg) {
            std::string name(f.name_string());
            std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
            req.headers[name] = std::string(f.value());
        }
        req.body = std::move(msg.body());
        req.connection = number_;
        keep_alive_ = msg.keep_alive();
        http11_ = msg.version() >= 11;
        served_ = true;
        auto ex = std::make_shared<Exchange>(weak_from_this(), stream_.get_executor());
        ex_ = ex;
        req.peer = ex;
        watch();
        auto self = shared_from_this();
        auto exec = stream_.get_executor();
        // On the network thread the answer goes out at once (the send is the last thing the caller
        // waits for); from any other thread it is posted here.
        shared_->handler(std::move(req), [self, ex, exec](Response res) {
            asio::dispatch(exec, [self, ex, res = std::move(res)]() mutable { self->deliver(ex, std::move(res)); });
        });
    }

    // An error detected before any handler ran: answer, then drain what the client still sends.
    void refuse(Response res) {
        ex_.reset();
        rested();
        queue(head(res, false, true, res.body.size()) + res.body);
        after_ = After::linger;
        if (!writing_) write_next();
    }

    // While a request is pending or streaming, keep a read open to notice the client leaving.
    // Bytes that arrive (a pipelined request) stay in buffer_ for the next parse.
    void watch() {
        if (watching_ || closed_ || buffer_.size() >= kMaxPipelinedBytes) return;
        watching_ = true;
        stream_.socket().async_read_some(buffer_.prepare(16384), [self = shared_from_this()](beast::error_code ec,
                                                                                             std::size_t n) {
            self->on_watch(ec, n);
        });
    }

    void on_watch(beast::error_code ec, std::size_t n) {
        watching_ = false;
        if (lingering_) {
            buffer_.consume(buffer_.size());
            drained_ += n;
            if (ec || drained_ > kMaxDrainBytes) return close();
            return drain();
        }
        if (!ec) {
            buffer_.commit(n);
            if (resume_) {
                resume_ = false;
                return read();
            }
            if (ex_) watch();
            return;
        }
        if (ec == asio::error::operation_aborted && resume_ && !closed_) {
            resume_ = false;
            return read();
        }
        if (ec == asio::error::operation_aborted) return;
        lost();
    }

    // The client is gone (EOF, reset, write failure, too far behind).
    void lost() {
        if (auto ex = ex_) ex->disconnected();
        close();
    }

    void queue(std::string data) {
        queued_ += data.size();
        out_.push_back(std::move(data));
        if (!writing_) write_next();
    }

    void write_next() {
        if (closed_) return;
        if (out_.empty()) {
            writing_ = false;
            auto after = after_;
            after_ = After::none;
            if (after == After::next) next_exchange();
            else if (after == After::linger) linger();
            return;
        }
        writing_ = true;
        auto batch = std::make_shared<std::string>();
        if (out_.size() == 1) *batch = std::move(out_.front());
        else
            for (auto& s : out_) *batch += s;
        out_.clear();
        timer_.expires_after(kWriteTimeout);
        timer_.async_wait([w = weak_from_this()](beast::error_code ec) {
            if (ec) return;
            if (auto self = w.lock()) self->lost();
        });
        asio::async_write(stream_.socket(), asio::buffer(*batch),
                          [self = shared_from_this(), batch](beast::error_code ec, std::size_t) {
                              self->timer_.cancel();
                              self->queued_ -= std::min(self->queued_, batch->size());
                              if (ec) return self->lost();
                              self->write_next();
                          });
    }

    void next_exchange() {
        ex_.reset();
        if (watching_) {
            resume_ = true;
            beast::error_code ignored;
            stream_.socket().cancel(ignored);
            return;
        }
        read();
    }

    // Half-close, then read and discard until the client closes (so it sees our answer instead
    // of a reset), bounded in time and bytes.
    void linger() {
        if (closed_) return;
        if (auto ex = ex_) ex->finished();
        lingering_ = true;
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
        timer_.expires_after(kLingerTimeout);
        timer_.async_wait([w = weak_from_this()](beast::error_code e) {
            if (e) return;
            if (auto self = w.lock()) self->close();
        });
        buffer_.consume(buffer_.size());
        if (!watching_) drain();
    }

    void drain() {
        if (closed_) return;
        watching_ = true;
        stream_.socket().async_read_some(buffer_.prepare(65536), [self = shared_from_this()](beast::error_code ec,
                                                                                             std::size_t n) {
            self->on_watch(ec, n);
        });
    }

    void close() {
        if (closed_) return;
        closed_ = true;
        leave();
        timer_.cancel();
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
        stream_.socket().close(ec);
    }

    // No request in flight any more: the newest idle connection, the last one closed for room.
    void rested() {
        if (seat_) shared_->admission.idle(*seat_);
    }

    void leave() {
        if (seat_) shared_->admission.leave(*seat_);
        seat_.reset();
    }

    beast::tcp_stream stream_;
    asio::steady_timer timer_;
    beast::flat_buffer buffer_;
    std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
    std::shared_ptr<Shared> shared_;
    std::optional<Admission::Seat> seat_;
    std::uint64_t number_;  // Request::connection
    std::shared_ptr<Exchange> ex_;
    std::deque<std::string> out_;
    std::size_t queued_ = 0, drained_ = 0;
    After after_ = After::none;
    bool keep_alive_ = true, http11_ = true, chunked_ = true, stream_close_ = false;
    bool writing_ = false, watching_ = false, resume_ = false, lingering_ = false, closed_ = false, served_ = false;
};

void Exchange::on_disconnect(std::function<void()> fn) {
    asio::post(exec_, [self = shared_from_this(), fn = std::move(fn)]() mutable {
        if (self->disconnected_) {
            try {
                fn();
            } catch (...) {
            }
        } else if (!self->over_) {
            self->callbacks_.push_back(std::move(fn));
        }
    });
}

void Exchange::write_here(std::string data) {
    auto* io = exec_.target<asio::io_context::executor_type>();
    if (!io || !io->running_in_this_thread()) return write(std::move(data));  // not where the contract says: post
    if (auto c = conn_.lock()) c->stream_write(shared_from_this(), data);
}

std::size_t Exchange::backlog() const {
    auto c = conn_.lock();
    return c ? c->queued_bytes() : 0;
}

void Exchange::write(std::string data) {
    asio::post(exec_, [self = shared_from_this(), data = std::move(data)] {
        if (auto c = self->conn_.lock()) c->stream_write(self, data);
    });
}

void Exchange::end() {
    asio::post(exec_, [self = shared_from_this()] {
        if (auto c = self->conn_.lock()) c->stream_end(self);
    });
}

}  // namespace

struct Server::Impl : std::enable_shared_from_this<Server::Impl> {
    asio::io_context& io;
    tcp::acceptor acceptor;
    asio::steady_timer pause;
    std::shared_ptr<Shared> shared;
    AcceptBackoff backoff;
    int failures = 0;  // accept() failures since the last success

    Impl(asio::io_context& i, Handler h, ErrorResponder e, Limits l)
        : io(i), acceptor(i), pause(i), shared(std::make_shared<Shared>(std::move(h), std::move(e), l)) {}

    void accept() {
        // One thread runs `io`, so connections need no strand — and without one, a response
        // completed on that thread is written inline (see dispatch).
        acceptor.async_accept(io.get_executor(), [self = shared_from_this()](beast::error_code ec, tcp::socket s) {
            self->on_accept(ec, std::move(s));
        });
    }

    void on_accept(beast::error_code ec, tcp::socket s) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
        if (!ec) {
            failures = 0;
            backoff.reset();
            admit(std::move(s));
            return accept();
        }
        ++failures;
        auto kind = ec.category() == boost::system::system_category() ? classify_accept_error(ec.value())
                                                                       : AcceptFailure::other;
        if (kind == AcceptFailure::transient && failures <= kRetriesAfterTransient) return accept();
        // Out of descriptors: closing the connection idle the longest frees one for the client
        // waiting; when nothing can be closed (or that did not help), pause instead of spinning.
        if (kind == AcceptFailure::exhausted && failures <= kRetriesAfterEviction &&
            shared->admission.evict_one(Admission::Clock::now() - kEvictionGrace))
            return accept();
        auto delay = backoff.next();
        shared->accept_failed.warn("http accept failed; pausing before accepting again",
                                   {{"error", ec.message()},
                                    {"pause_ms", static_cast<std::int64_t>(delay.count())},
                                    {"connections", static_cast<std::uint64_t>(shared->admission.size())}});
        pause.expires_after(delay);
        pause.async_wait([self = shared_from_this()](beast::error_code e) {
            if (!e && self->acceptor.is_open()) self->accept();
        });
    }

    // At the cap, the connection idle the longest makes room; if every one is busy (a request
    // being handled or a stream: clients with the token), the newcomer is turned away.
    void admit(tcp::socket s) {
        if (shared->admission.full()) {
            if (!shared->admission.evict_one()) {
                shared->all_busy.warn("http connection refused: every connection is busy",
                                      {{"max_connections", static_cast<std::uint64_t>(shared->limits.max_connections)}});
                beast::error_code ignored;
                s.close(ignored);
                return;
            }
            shared->cap_reached.warn("http connection cap reached; closed the connection idle the longest",
                                     {{"max_connections", static_cast<std::uint64_t>(shared->limits.max_connections)}});
        }
        beast::error_code ignored;
        s.set_option(tcp::no_delay(true), ignored);
        std::make_shared<Connection>(std::move(s), shared)->start();
    }
};

Server::Server(asio::io_context& io, Handler handler, ErrorResponder on_error, Limits limits)
    : impl_(std::make_shared<Impl>(io, std::move(handler), std::move(on_error), limits)) {}

Server::~Server() { stop(); }

core::Result<std::uint16_t> Server::listen(std::uint16_t port, int fallbacks) {
    auto addr = asio::ip::make_address("127.0.0.1");
    std::string last;
    int tries = port == 0 ? 1 : std::max(1, fallbacks + 1);
    for (int i = 0; i < tries; ++i) {
        auto p = static_cast<std::uint16_t>(port == 0 ? 0 : port + i);
        beast::error_code ec;
        auto& a = impl_->acceptor;
        if (a.is_open()) a.close(ec);
        a.open(tcp::v4(), ec);
        if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
        if (!ec) a.bind(tcp::endpoint(addr, p), ec);
        if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
        if (!ec) {
            impl_->accept();
            return a.local_endpoint().port();
        }
        last = ec.message();
    }
    return core::Error::make(core::code::unavailable,
                             "cannot listen on 127.0.0.1:" + std::to_string(port) +
                                 (tries > 1 ? "-" + std::to_string(port + tries - 1) : std::string()) + ": " + last +
                                 "; stop the other process or pass --port");
}

void Server::stop() {
    if (!impl_) return;
    beast::error_code ec;
    impl_->acceptor.close(ec);
    impl_->pause.cancel();
}

}  // namespace coffer::http
