// One HTTP(S) POST with a deadline (see http_post.hpp). A coroutine on a private io_context per
// request: the embedder is called from one worker thread, and a fresh context makes the
// deadline simple (run_for) and leaves nothing behind after a timeout.
#include "retrieval/http_post.hpp"

#include "retrieval/types.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/url/parse.hpp>

#include <openssl/ssl.h>

namespace coffer::retrieval {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using asio::ip::tcp;

namespace {

constexpr std::size_t kMaxBody = 256 * 1024 * 1024;

[[noreturn]] void invalid(const std::string& what) { throw Error(Error::Code::invalid, "embeddings base_url: " + what); }

// Where the request got to when it failed, for the message.
struct Step {
    const char* name = "resolving the host";
};

template <typename Stream>
asio::awaitable<void> exchange(Stream& stream, http::request<http::string_body>& req, HttpReply& out, Step& step) {
    step.name = "sending the request";
    co_await http::async_write(stream, req, asio::use_awaitable);
    step.name = "reading the answer";
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxBody);
    co_await http::async_read(stream, buf, parser, asio::use_awaitable);
    auto& res = parser.get();
    out.status = static_cast<int>(res.result_int());
    out.body = std::move(res.body());
    if (auto it = res.find(http::field::retry_after); it != res.end()) out.retry_after = std::string(it->value());
}

}  // namespace

struct HttpPoster::Tls {
    ssl::context ctx{ssl::context::tls_client};
    Tls() {
        ctx.set_default_verify_paths();
        ctx.set_verify_mode(ssl::verify_peer);
    }
};

Endpoint parse_endpoint(std::string_view base_url, std::string_view suffix) {
    auto r = boost::urls::parse_uri(base_url);
    if (!r) invalid("not a URL");
    auto u = *r;
    Endpoint ep;
    if (u.scheme() == "https") ep.tls = true;
    else if (u.scheme() != "http") invalid("the scheme must be http or https");
    if (u.has_userinfo()) invalid("credentials in the URL are not supported; use the api key setting");
    ep.host = u.host_address();
    if (ep.host.empty()) invalid("no host");
    ep.port = u.has_port() ? std::string(u.port()) : (ep.tls ? "443" : "80");
    ep.host_header = std::string(u.encoded_host_and_port());
    std::string path(u.encoded_path());
    while (!path.empty() && path.back() == '/') path.pop_back();
    ep.target = path + std::string(suffix);
    if (ep.target.empty() || ep.target.front() != '/') ep.target.insert(0, "/");
    return ep;
}

HttpPoster::HttpPoster(Endpoint ep) : ep_(std::move(ep)) {
    if (ep_.tls) tls_ = std::make_unique<Tls>();
}

HttpPoster::~HttpPoster() = default;

HttpReply HttpPoster::post(const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
                           std::chrono::milliseconds timeout) {
    http::request<http::string_body> req{http::verb::post, ep_.target, 11};
    req.set(http::field::host, ep_.host_header);
    req.set(http::field::user_agent, "coffer-retrieval");
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "application/json");
    req.set(http::field::connection, "close");
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = body;
    req.prepare_payload();

    HttpReply out;
    Step step;
    std::exception_ptr failure;
    bool finished = false;
    auto run = [&]() -> asio::awaitable<void> {
        auto ex = co_await asio::this_coro::executor;
        tcp::resolver resolver(ex);
        auto endpoints = co_await resolver.async_resolve(ep_.host, ep_.port, asio::use_awaitable);
        if (!tls_) {
            beast::tcp_stream stream(ex);
            stream.expires_after(timeout);
            step.name = "connecting";
            co_await stream.async_connect(endpoints, asio::use_awaitable);
            co_await exchange(stream, req, out, step);
            beast::error_code ignore;
            stream.socket().shutdown(tcp::socket::shutdown_both, ignore);
            co_return;
        }
        beast::ssl_stream<beast::tcp_stream> stream(ex, tls_->ctx);
        // SNI, and the certificate must name the host we asked for.
        if (!SSL_set_tlsext_host_name(stream.native_handle(), ep_.host.c_str()))
            throw Error(Error::Code::unavailable, "TLS setup failed");
        stream.set_verify_callback(ssl::host_name_verification(ep_.host));
        beast::get_lowest_layer(stream).expires_after(timeout);
        step.name = "connecting";
        co_await beast::get_lowest_layer(stream).async_connect(endpoints, asio::use_awaitable);
        step.name = "the TLS handshake";
        co_await stream.async_handshake(ssl::stream_base::client, asio::use_awaitable);
        co_await exchange(stream, req, out, step);
    };
    // Declared last so it is destroyed first: a request still pending after the deadline is torn
    // down while everything its coroutine refers to still exists.
    asio::io_context ioc;
    asio::co_spawn(ioc, run(), [&](std::exception_ptr e) {
        failure = e;
        finished = true;
    });
    ioc.run_for(timeout);
    if (!finished)
        throw Error(Error::Code::unavailable, std::string("embeddings endpoint timed out while ") + step.name);
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const Error&) {
            throw;
        } catch (const std::exception& e) {
            throw Error(Error::Code::unavailable,
                        std::string("embeddings endpoint failed while ") + step.name + ": " + e.what());
        }
    }
    return out;
}

}  // namespace coffer::retrieval
