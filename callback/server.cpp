#include "server.hpp"

#include "signature.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace coffer::callback {

namespace json = boost::json;
namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

constexpr std::size_t kMaxBody = 1 << 20;  // SeaTalk events are small
using tcp = asio::ip::tcp;

struct Reply {
    http::status status = http::status::ok;
    json::value body;
    std::optional<json::object> forward;  // what goes to the adapter once the reply is out
};

Reply handle(const Settings& s, const http::request<http::string_body>& req, const std::function<void(const std::string&)>& log) {
    auto error = [](http::status st, const char* why) { return Reply{st, json::object{{"error", why}}, std::nullopt}; };
    if (std::string_view(req.target()) != "/seatalk/" + s.channel) return error(http::status::not_found, "no such callback");
    if (req.method() != http::verb::post) return error(http::status::method_not_allowed, "POST only");
    auto sig = req.find("Signature");
    if (sig == req.end() || !signature_ok(req.body(), s.secret, sig->value())) {
        log("refused a callback with " + std::string(sig == req.end() ? "no" : "a wrong") + " signature (" +
            std::to_string(req.body().size()) + " bytes)");
        return error(http::status::unauthorized, "invalid signature");
    }
    boost::system::error_code ec;
    auto v = json::parse(req.body(), ec);
    if (ec || !v.is_object()) return error(http::status::bad_request, "the body is not a JSON object");
    auto& o = v.as_object();
    auto* type = o.if_contains("event_type");
    if (type && type->is_string() && type->as_string() == "event_verification") {
        json::value challenge;
        if (auto* e = o.if_contains("event"); e && e->is_object())
            if (auto* c = e->as_object().if_contains("seatalk_challenge")) challenge = *c;
        return Reply{http::status::ok, json::object{{"seatalk_challenge", challenge}}, std::nullopt};
    }
    return Reply{http::status::ok, json::object{{"code", 0}}, std::move(o)};
}

asio::awaitable<void> session(tcp::socket socket, Settings s, Forward forward,
                              std::function<void(const std::string&)> log) {
    boost::beast::flat_buffer buf;
    for (;;) {
        http::request_parser<http::string_body> parser;
        parser.body_limit(kMaxBody);
        boost::system::error_code ec;
        co_await http::async_read(socket, buf, parser, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return;
        auto& req = parser.get();
        auto reply = handle(s, req, log);
        std::string spooled;
        if (reply.forward && s.spool) {  // kept before SeaTalk hears 200
            std::string why;
            if (auto name = s.spool->put(*reply.forward, why)) {
                spooled = *name;
            } else {
                log("cannot keep an event (" + why + "); answered 500 so that it is delivered again");
                reply = Reply{http::status::internal_server_error, json::object{{"error", "cannot keep the event"}}, std::nullopt};
            }
        }
        http::response<http::string_body> res{reply.status, req.version()};
        res.set(http::field::content_type, "application/json");
        res.keep_alive(req.keep_alive());
        res.body() = json::serialize(reply.body);
        res.prepare_payload();
        co_await http::async_write(socket, res, asio::redirect_error(asio::use_awaitable, ec));
        if (reply.forward) forward(std::move(*reply.forward), spooled);  // acknowledged first, then forwarded
        if (ec || !req.keep_alive()) co_return;
    }
}

asio::awaitable<void> accept(tcp::acceptor& acceptor, Settings s, Forward forward,
                             std::function<void(const std::string&)> log) {
    for (;;) {
        boost::system::error_code ec;
        auto socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
        if (ec) co_return;
        asio::co_spawn(acceptor.get_executor(), session(std::move(socket), s, forward, log), asio::detached);
    }
}

}  // namespace

std::uint16_t serve(asio::io_context& io, const Settings& s, Forward forward,
                    std::function<void(const std::string&)> log) {
    auto acceptor = std::make_shared<tcp::acceptor>(io);
    tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), s.port);
    acceptor->open(ep.protocol());
    acceptor->set_option(tcp::acceptor::reuse_address(true));
    acceptor->bind(ep);
    acceptor->listen();
    auto port = acceptor->local_endpoint().port();
    asio::co_spawn(io, [acceptor, s, forward, log]() -> asio::awaitable<void> { co_await accept(*acceptor, s, forward, log); },
                   asio::detached);
    return port;
}

}  // namespace coffer::callback
