// Test support: LoopbackServer (see loopback_server.hpp).
#include "loopback_server.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace coffer::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

using tcp = asio::ip::tcp;

asio::awaitable<void> serve(tcp::socket socket, LoopbackServer::Handler handler) {
    beast::flat_buffer buf;
    for (;;) {
        http::request<http::string_body> req;
        boost::system::error_code ec;
        co_await http::async_read(socket, buf, req, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return;
        ServerRequest in{std::string(req.method_string()), std::string(req.target()), req.body(), {}};
        for (auto& f : req) in.headers[boost::algorithm::to_lower_copy(std::string(f.name_string()))] = std::string(f.value());
        auto out = co_await handler(std::move(in));
        http::response<http::string_body> res{static_cast<http::status>(out.status), req.version()};
        res.set(http::field::content_type, "application/json");
        for (auto& [k, v] : out.headers) res.set(k, v);
        res.keep_alive(req.keep_alive());
        res.body() = std::move(out.body);
        res.prepare_payload();
        co_await http::async_write(socket, res, asio::redirect_error(asio::use_awaitable, ec));
        if (ec || !req.keep_alive()) co_return;
    }
}

asio::awaitable<void> accept(std::shared_ptr<tcp::acceptor> acceptor, LoopbackServer::Handler handler) {
    for (;;) {
        boost::system::error_code ec;
        auto s = co_await acceptor->async_accept(asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return;
        asio::co_spawn(acceptor->get_executor(), serve(std::move(s), handler), asio::detached);
    }
}

}  // namespace

LoopbackServer::LoopbackServer(Handler handler) : io_(std::make_unique<asio::io_context>(1)) {
    auto acceptor = std::make_shared<tcp::acceptor>(*io_);
    tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
    acceptor->open(ep.protocol());
    acceptor->set_option(tcp::acceptor::reuse_address(true));
    acceptor->bind(ep);
    acceptor->listen();
    port_ = acceptor->local_endpoint().port();
    asio::co_spawn(*io_, accept(acceptor, std::move(handler)), asio::detached);
    thread_ = std::thread([io = io_.get()] { io->run(); });
}

LoopbackServer::~LoopbackServer() {
    io_->stop();
    thread_.join();
}

}  // namespace coffer::test
