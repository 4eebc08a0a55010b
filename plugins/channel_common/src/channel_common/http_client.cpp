#include "channel_common/http_client.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/url/parse.hpp>

#include <openssl/ssl.h>

#include <cctype>

namespace coffer::channel_common {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;

namespace {

using tcp = asio::ip::tcp;
constexpr std::size_t kMaxBody = 16 * 1024 * 1024;

std::string lower(std::string_view s) { return boost::algorithm::to_lower_copy(std::string(s)); }

ssl::context& tls_context() {
    static ssl::context ctx = [] {
        ssl::context c(ssl::context::tls_client);
        c.set_default_verify_paths();
        c.set_verify_mode(ssl::verify_peer);
        return c;
    }();
    return ctx;
}

template <typename Stream>
asio::awaitable<void> exchange(Stream& stream, const Endpoint& ep, const HttpRequest& rq, HttpReply& out) {
    http::request<http::string_body> req{http::string_to_verb(rq.method), ep.base_path + rq.path, 11};
    req.set(http::field::host, ep.host_header);
    req.set(http::field::user_agent, "coffer-channel");
    req.set(http::field::accept, "application/json");
    if (!rq.body.empty() || rq.method == "POST") req.set(http::field::content_type, rq.content_type);
    for (auto& [k, v] : rq.headers) req.set(k, v);
    req.body() = rq.body;
    req.prepare_payload();
    http::response_parser<http::string_body> answer;
    answer.body_limit(kMaxBody);
    beast::flat_buffer buffer;
    co_await http::async_write(stream, req, asio::use_awaitable);
    co_await http::async_read(stream, buffer, answer, asio::use_awaitable);
    out.status = static_cast<int>(answer.get().result_int());
    for (auto& f : answer.get()) out.headers.emplace_back(lower(f.name_string()), std::string(f.value()));
    out.body = std::move(answer.get().body());
}

}  // namespace

std::string HttpReply::header(std::string_view name) const {
    for (auto& [k, v] : headers)
        if (k == name) return v;
    return {};
}

bool is_loopback_host(std::string_view host) {
    return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]" || host.substr(0, 4) == "127.";
}

std::optional<Endpoint> parse_endpoint(std::string_view url, std::string& why) {
    auto r = boost::urls::parse_uri(url);
    if (!r) {
        why = "not a URL: " + r.error().message();
        return std::nullopt;
    }
    Endpoint ep;
    auto scheme = lower(r->scheme());
    if (scheme == "https") ep.tls = true;
    else if (scheme != "http") {
        why = "the scheme must be http or https";
        return std::nullopt;
    }
    ep.host = std::string(r->host_address());
    if (ep.host.empty()) {
        why = "the URL has no host";
        return std::nullopt;
    }
    if (r->has_query() || r->has_fragment() || r->has_userinfo()) {
        why = "a base URL has no query, fragment or user info";
        return std::nullopt;
    }
    ep.port = r->has_port() ? std::string(r->port()) : std::string(ep.tls ? "443" : "80");
    ep.host_header = std::string(r->encoded_host_and_port());
    ep.base_path = std::string(r->encoded_path());
    while (!ep.base_path.empty() && ep.base_path.back() == '/') ep.base_path.pop_back();
    return ep;
}

std::string api_base_problem(const boost::json::value& base) {
    std::string why;
    if (!base.is_string()) return "must be a string";
    auto ep = parse_endpoint(base.as_string(), why);
    if (ep && !ep->tls && !is_loopback_host(ep->host)) why = "plain http is allowed only on loopback (a local stand-in); use https";
    return why;
}

asio::awaitable<HttpReply> http_request(Endpoint ep, HttpRequest rq) {
    HttpReply out;
    const char* step = "resolving the host";
    try {
        auto exec = co_await asio::this_coro::executor;
        tcp::resolver resolver(exec);
        auto found = co_await resolver.async_resolve(ep.host, ep.port, asio::use_awaitable);
        if (ep.tls) {
            beast::ssl_stream<beast::tcp_stream> stream(exec, tls_context());
            beast::get_lowest_layer(stream).expires_after(rq.timeout);
            if (!SSL_set_tlsext_host_name(stream.native_handle(), ep.host.c_str())) throw beast::system_error(
                beast::error_code(static_cast<int>(::ERR_get_error()), asio::error::get_ssl_category()));
            stream.set_verify_callback(ssl::host_name_verification(ep.host));
            step = "connecting";
            co_await beast::get_lowest_layer(stream).async_connect(found, asio::use_awaitable);
            step = "the TLS handshake";
            co_await stream.async_handshake(ssl::stream_base::client, asio::use_awaitable);
            step = "the exchange";
            co_await exchange(stream, ep, rq, out);
            beast::error_code ec;
            beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_both, ec);
        } else {
            beast::tcp_stream stream(exec);
            stream.expires_after(rq.timeout);
            step = "connecting";
            co_await stream.async_connect(found, asio::use_awaitable);
            step = "the exchange";
            co_await exchange(stream, ep, rq, out);
            beast::error_code ec;
            stream.socket().shutdown(tcp::socket::shutdown_both, ec);
        }
    } catch (const boost::system::system_error& e) {
        out.status = 0;
        out.error = e.code() == beast::error::timeout ? std::string("no answer within the deadline (") + step + ")"
                                                      : std::string(step) + " failed: " + e.code().message();
    } catch (const std::exception& e) {
        out.status = 0;
        out.error = std::string(step) + " failed: " + e.what();
    }
    co_return out;
}

}  // namespace coffer::channel_common
