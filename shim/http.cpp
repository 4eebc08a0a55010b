#include "shim/http.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <unordered_map>

#include <sys/socket.h>

namespace coffer::shim {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// A pooled connection older than this is closed rather than reused. The daemon drops idle
// connections after 120 s; staying well below means a request is never written into a
// connection the daemon is closing at that very moment (which would make "did it run?"
// unanswerable).
constexpr auto kMaxIdle = std::chrono::seconds(50);
constexpr std::size_t kMaxPooled = 64;
constexpr std::size_t kChunk = 64 * 1024;

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

struct Conn {
    Conn(net::io_context& io, std::uint16_t port) : sock(io), port(port) {}
    tcp::socket sock;
    std::uint16_t port; // the daemon port it is connected to
    beast::flat_buffer buffer;
    std::unique_ptr<char[]> chunk{new char[kChunk]}; // body bytes land here (not zeroed: no memset per request)
    Clock::time_point idle_since{};
};

// True when the (idle) connection's peer has not closed it and sent nothing unexpected.
bool still_open(Conn& c) {
    if (c.buffer.size() != 0) return false;
    char byte;
    ssize_t n = ::recv(c.sock.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return false;                                        // orderly close
    if (n > 0) return false;                                         // stray bytes: do not trust it
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; // nothing to read: fine
}

}  // namespace

std::optional<std::string_view> ResponseHead::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (iequals(k, name)) return std::string_view(v);
    return std::nullopt;
}

struct HttpClient::Impl : std::enable_shared_from_this<HttpClient::Impl> {
    explicit Impl(net::io_context& io) : io(io) {}

    struct Exchange : std::enable_shared_from_this<Exchange> {
        std::weak_ptr<Impl> owner;
        std::uint64_t id = 0;
        std::unique_ptr<Conn> conn;
        http::request<http::string_body> req;
        std::optional<http::response_parser<http::buffer_body>> parser;
        std::shared_ptr<ResponseSink> sink;
        bool ended = false;
        bool writing = false; // the request may have (partly) reached the daemon

        void start(Impl& impl) {
            while (!impl.idle.empty()) {
                auto c = std::move(impl.idle.back());
                impl.idle.pop_back();
                if (Clock::now() - c->idle_since < kMaxIdle && still_open(*c)) {
                    conn = std::move(c);
                    return write();
                }
                beast::error_code ignored;
                c->sock.close(ignored);
            }
            conn = std::make_unique<Conn>(impl.io, impl.port);
            conn->sock.async_connect(tcp::endpoint(net::ip::address_v4::loopback(), impl.port),
                                     [self = shared_from_this()](beast::error_code ec) {
                                         if (self->ended) return;
                                         if (ec) return self->finish(Failure::not_sent, "connect: " + ec.message());
                                         beast::error_code ignored;
                                         self->conn->sock.set_option(tcp::no_delay(true), ignored);
                                         self->write();
                                     });
        }

        void write() {
            writing = true;
            http::async_write(conn->sock, req, [self = shared_from_this()](beast::error_code ec, std::size_t) {
                if (self->ended) return;
                if (ec) return self->finish(Failure::refused, "write: " + ec.message());
                self->read_head();
            });
        }

        void read_head() {
            parser.emplace();
            parser->body_limit(boost::none); // SSE streams are unbounded
            parser->header_limit(64 * 1024);
            http::async_read_header(conn->sock, conn->buffer, *parser,
                                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                        if (self->ended) return;
                                        if (ec) return self->finish(Failure::interrupted, "read: " + ec.message());
                                        self->on_head();
                                    });
        }

        void on_head() {
            ResponseHead head;
            const auto& msg = parser->get();
            head.status = static_cast<int>(msg.result_int());
            for (const auto& f : msg) head.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
            sink->on_head(head);
            if (ended) return; // aborted from the callback
            if (parser->is_done()) return complete();
            read_body();
        }

        void read_body() {
            auto& body = parser->get().body();
            body.data = conn->chunk.get();
            body.size = kChunk;
            http::async_read_some(conn->sock, conn->buffer, *parser,
                                  [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                      if (self->ended) return;
                                      if (ec == http::error::need_buffer) ec = {};
                                      std::size_t got = kChunk - self->parser->get().body().size;
                                      if (got) {
                                          self->sink->on_data(std::string_view(self->conn->chunk.get(), got));
                                          if (self->ended) return;
                                      }
                                      if (ec) return self->finish(Failure::interrupted, "read: " + ec.message());
                                      if (self->parser->is_done()) return self->complete();
                                      self->read_body();
                                  });
        }

        void complete() {
            auto impl = owner.lock();
            bool reusable = parser->keep_alive() && conn->buffer.size() == 0;
            if (impl && reusable && conn->port == impl->port && impl->idle.size() < kMaxPooled) {
                conn->idle_since = Clock::now();
                impl->idle.push_back(std::move(conn));
            }
            finish(Failure::none, {});
        }

        void finish(Failure f, const std::string& what) {
            if (ended) return;
            ended = true;
            if (conn) {
                beast::error_code ignored;
                conn->sock.close(ignored);
            }
            if (auto impl = owner.lock()) impl->live.erase(id);
            auto s = std::move(sink);
            s->on_end(f, what);
        }
    };

    net::io_context& io;
    std::uint16_t port = 0;
    std::vector<std::unique_ptr<Conn>> idle;
    std::unordered_map<std::uint64_t, std::shared_ptr<Exchange>> live;
    std::uint64_t next_id = 1;

    void drop_idle() {
        for (auto& c : idle) {
            beast::error_code ignored;
            c->sock.close(ignored);
        }
        idle.clear();
    }
};

HttpClient::HttpClient(net::io_context& io) : impl_(std::make_shared<Impl>(io)) {}
HttpClient::~HttpClient() { abort_all("client destroyed"); }

void HttpClient::set_port(std::uint16_t port) {
    if (port != impl_->port) impl_->drop_idle();
    impl_->port = port;
}

std::uint16_t HttpClient::port() const noexcept { return impl_->port; }

std::uint64_t HttpClient::start(OutgoingRequest r, std::shared_ptr<ResponseSink> sink) {
    auto ex = std::make_shared<Impl::Exchange>();
    ex->owner = impl_;
    ex->id = impl_->next_id++;
    ex->sink = std::move(sink);
    http::verb verb = http::string_to_verb(r.method);
    ex->req = http::request<http::string_body>(verb == http::verb::unknown ? http::verb::post : verb, r.target, 11);
    ex->req.set(http::field::host, "127.0.0.1:" + std::to_string(impl_->port));
    for (auto& [k, v] : r.headers) ex->req.set(k, v);
    if (!r.body.empty() || verb == http::verb::post) {
        ex->req.body() = std::move(r.body);
        ex->req.prepare_payload();
    }
    impl_->live.emplace(ex->id, ex);
    ex->start(*impl_);
    return ex->id;
}

void HttpClient::abort(std::uint64_t handle, const std::string& why) {
    auto it = impl_->live.find(handle);
    if (it == impl_->live.end()) return;
    auto ex = it->second; // keep alive through finish()
    ex->finish(ex->writing ? Failure::aborted : Failure::not_sent, why);
}

void HttpClient::abort_all(const std::string& why) {
    std::vector<std::shared_ptr<Impl::Exchange>> all;
    all.reserve(impl_->live.size());
    for (auto& [id, ex] : impl_->live) all.push_back(ex);
    for (auto& ex : all) ex->finish(ex->writing ? Failure::aborted : Failure::not_sent, why);
    impl_->drop_idle();
}

void HttpClient::close_idle() { impl_->drop_idle(); }

std::size_t HttpClient::active() const noexcept { return impl_->live.size(); }

}  // namespace coffer::shim
