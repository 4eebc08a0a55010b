#include "http/server.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>

namespace coffer::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

void parse_target(Request& r) {
    auto u = boost::urls::parse_origin_form(r.target);
    if (!u) {
        r.path = r.target.substr(0, r.target.find('?'));
        return;
    }
    r.path = std::string(u->path());
    for (auto p : u->params()) r.query[std::string(p.key)] = std::string(p.value);
}

class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(tcp::socket s, std::shared_ptr<const Handler> h, std::shared_ptr<const ErrorResponder> e, Limits l)
        : stream_(std::move(s)), handler_(std::move(h)), on_error_(std::move(e)), limits_(l) {}

    void start() { read(); }

private:
    void read() {
        parser_.emplace();
        parser_->body_limit(limits_.max_body);
        parser_->header_limit(static_cast<std::uint32_t>(limits_.max_header));
        stream_.expires_after(std::chrono::seconds(limits_.idle_timeout_s));
        bhttp::async_read(stream_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (ec == bhttp::error::end_of_stream || ec == asio::error::operation_aborted || ec == beast::error::timeout ||
            ec == asio::error::connection_reset || ec == asio::error::eof)
            return close();
        if (ec == bhttp::error::body_limit)
            return write((*on_error_)(413, "PAYLOAD_TOO_LARGE", "request body exceeds the 4 MiB limit"), true);
        if (ec == bhttp::error::header_limit)
            return write((*on_error_)(431, "BAD_REQUEST", "request headers are too large"), true);
        if (ec) return write((*on_error_)(400, "BAD_REQUEST", "malformed HTTP request: " + ec.message()), true);

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
        keep_alive_ = msg.keep_alive();
        stream_.expires_never();
        auto self = shared_from_this();
        auto exec = stream_.get_executor();
        (*handler_)(std::move(req), [self, exec](Response res) {
            asio::post(exec, [self, res = std::move(res)]() mutable { self->write(std::move(res), res.close); });
        });
    }

    void write(Response res, bool close_after) {
        auto out = std::make_shared<bhttp::response<bhttp::string_body>>();
        out->version(11);
        out->result(static_cast<unsigned>(res.status));
        out->set(bhttp::field::server, "coffer");
        out->set(bhttp::field::content_type, res.content_type);
        out->set(bhttp::field::cache_control, "no-store");
        for (auto& [k, v] : res.headers) out->set(k, v);
        out->body() = std::move(res.body);
        bool close_now = close_after || !keep_alive_;
        out->keep_alive(!close_now);
        out->prepare_payload();
        stream_.expires_after(std::chrono::seconds(30));
        bhttp::async_write(stream_, *out, [self = shared_from_this(), out, close_now](beast::error_code ec, std::size_t) {
            if (ec || close_now) return self->close();
            self->read();
        });
    }

    void close() {
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
        stream_.socket().close(ec);
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
    std::shared_ptr<const Handler> handler_;
    std::shared_ptr<const ErrorResponder> on_error_;
    Limits limits_;
    bool keep_alive_ = true;
};

}  // namespace

struct Server::Impl : std::enable_shared_from_this<Server::Impl> {
    asio::io_context& io;
    tcp::acceptor acceptor;
    std::shared_ptr<const Handler> handler;
    std::shared_ptr<const ErrorResponder> on_error;
    Limits limits;

    Impl(asio::io_context& i, Handler h, ErrorResponder e, Limits l)
        : io(i), acceptor(i), handler(std::make_shared<const Handler>(std::move(h))),
          on_error(std::make_shared<const ErrorResponder>(std::move(e))), limits(l) {}

    void accept() {
        acceptor.async_accept(asio::make_strand(io), [self = shared_from_this()](beast::error_code ec, tcp::socket s) {
            if (ec == asio::error::operation_aborted || !self->acceptor.is_open()) return;
            if (!ec) {
                beast::error_code ignored;
                s.set_option(tcp::no_delay(true), ignored);
                std::make_shared<Connection>(std::move(s), self->handler, self->on_error, self->limits)->start();
            }
            self->accept();
        });
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
}

}  // namespace coffer::http
