// One HTTP(S) exchange with a deadline (see fetch.hpp). A coroutine on a private io_context per
// request: callers are worker threads, and a fresh context makes the deadline simple (run_for)
// and leaves nothing behind after a timeout.
#include "http_client/fetch.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>

#include <strings.h>

namespace coffer::http_client {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using asio::ip::tcp;

namespace {

// Where the request got to when it failed, for the message.
struct Step {
    const char* name = "resolving the host";
};

template <typename Stream>
asio::awaitable<void> exchange(Stream& stream, http::request<http::string_body>& req, Reply& out, Step& step,
                               std::size_t max_body) {
    step.name = "sending the request";
    co_await http::async_write(stream, req, asio::use_awaitable);
    step.name = "reading the answer";
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_body);
    if (req.method() == http::verb::head) parser.skip(true);
    co_await http::async_read(stream, buf, parser, asio::use_awaitable);
    auto& res = parser.get();
    out.status = static_cast<int>(res.result_int());
    for (const auto& f : res) out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    out.body = std::move(res.body());
}

}  // namespace

std::optional<std::string> Reply::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (k.size() == name.size() && ::strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
    return std::nullopt;
}

struct Client::Tls {
    ssl::context ctx{ssl::context::tls_client};
    Tls() {
        ctx.set_default_verify_paths();
        ctx.set_verify_mode(ssl::verify_peer);
    }
};

Client::Client() = default;
Client::~Client() = default;

Reply Client::fetch(const Request& r, std::chrono::milliseconds timeout, std::size_t max_body) {
    auto verb = http::string_to_verb(r.method);
    if (verb == http::verb::unknown) throw Error("unknown HTTP method");
    http::request<http::string_body> req{verb, r.url.target(), 11};
    req.set(http::field::host, r.url.host_header);
    req.set(http::field::user_agent, "coffer");
    req.set(http::field::connection, "close");
    for (const auto& [k, v] : r.headers) req.set(k, v);
    req.body() = r.body;
    if (!r.body.empty() || verb == http::verb::post || verb == http::verb::put || verb == http::verb::patch)
        req.prepare_payload();
    if (r.url.tls && !tls_) tls_ = std::make_unique<Tls>();

    Reply out;
    Step step;
    std::exception_ptr failure;
    bool finished = false;
    const Url& url = r.url;
    auto run = [&]() -> asio::awaitable<void> {
        auto ex = co_await asio::this_coro::executor;
        tcp::resolver resolver(ex);
        auto endpoints = co_await resolver.async_resolve(url.host, url.port, asio::use_awaitable);
        if (!url.tls) {
            beast::tcp_stream stream(ex);
            stream.expires_after(timeout);
            step.name = "connecting";
            co_await stream.async_connect(endpoints, asio::use_awaitable);
            co_await exchange(stream, req, out, step, max_body);
            beast::error_code ignore;
            stream.socket().shutdown(tcp::socket::shutdown_both, ignore);
            co_return;
        }
        beast::ssl_stream<beast::tcp_stream> stream(ex, tls_->ctx);
        // SNI, and the certificate must name the host we asked for.
        if (!SSL_set_tlsext_host_name(stream.native_handle(), url.host.c_str())) throw Error("TLS setup failed");
        stream.set_verify_callback(ssl::host_name_verification(url.host));
        beast::get_lowest_layer(stream).expires_after(timeout);
        step.name = "connecting";
        co_await beast::get_lowest_layer(stream).async_connect(endpoints, asio::use_awaitable);
        step.name = "the TLS handshake";
        co_await stream.async_handshake(ssl::stream_base::client, asio::use_awaitable);
        co_await exchange(stream, req, out, step, max_body);
    };
    // Declared last so it is destroyed first: a request still pending after the deadline is torn
    // down while everything its coroutine refers to still exists.
    asio::io_context ioc;
    asio::co_spawn(ioc, run(), [&](std::exception_ptr e) {
        failure = e;
        finished = true;
    });
    ioc.run_for(timeout);
    if (!finished) throw Error(std::string("timed out while ") + step.name);
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const Error&) {
            throw;
        } catch (const std::exception& e) {
            throw Error(std::string("failed while ") + step.name + ": " + e.what());
        }
    }
    return out;
}

}  // namespace coffer::http_client
