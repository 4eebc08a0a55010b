#include "client/http.hpp"

#include "client/codes.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/json/object.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <cctype>

namespace coffer::client {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr std::uint64_t max_response_body = 64ull * 1024 * 1024;

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

core::Error unreachable(const HttpRequest& r, std::string_view stage, const beast::error_code& ec,
                        std::chrono::milliseconds limit) {
    std::string where = r.host + ":" + std::to_string(r.port);
    std::string why = ec == beast::error::timeout
                          ? "timed out after " + std::to_string(limit.count()) + " ms"
                          : ec.message();
    // details.stage tells callers whether anything reached the daemon ("connect": nothing did).
    return core::Error::make(code::daemon_unreachable, std::string(stage) + " " + where + " failed: " + why,
                             boost::json::object{{"stage", stage == "connecting to" ? "connect" : "exchange"}});
}

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (iequals(k, name)) return v;
    return std::nullopt;
}

core::Result<HttpResponse> http_send(const HttpRequest& r, const HttpTimeouts& timeouts) {
    beast::error_code ec;
    auto address = net::ip::make_address(r.host, ec);
    if (ec) return core::Error::make(code::daemon_unreachable, "bad daemon address '" + r.host + "'");

    http::verb verb = http::string_to_verb(r.method);
    if (verb == http::verb::unknown)
        return core::Error::make(core::code::bad_request, "unknown HTTP method " + r.method);

    http::request<http::string_body> req{verb, r.target, 11};
    std::string host = address.is_v6() ? "[" + r.host + "]" : r.host;
    req.set(http::field::host, host + ":" + std::to_string(r.port));
    req.set(http::field::connection, "close");
    for (const auto& [k, v] : r.headers) req.set(k, v);
    if (r.body) req.body() = *r.body;
    req.prepare_payload();

    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    beast::flat_buffer buffer;
    buffer.reserve(64 * 1024);  // read in large chunks (the default starts at 512 bytes per recv)
    http::response_parser<http::string_body> parser;
    parser.body_limit(max_response_body);

    std::optional<core::Error> failure;
    tcp::endpoint endpoint(address, r.port);

    stream.expires_after(timeouts.connect);
    stream.async_connect(endpoint, [&](beast::error_code cec) {
        if (cec) {
            failure = unreachable(r, "connecting to", cec, timeouts.connect);
            return;
        }
        stream.expires_after(timeouts.request);
        http::async_write(stream, req, [&](beast::error_code wec, std::size_t) {
            // A server may answer (e.g. 413) and close before it read the whole body: still
            // try to read its answer, and report the write error only if there is none.
            http::async_read(stream, buffer, parser, [&, wec](beast::error_code rec, std::size_t) {
                if (!rec) return;
                failure = wec ? unreachable(r, "sending to", wec, timeouts.request)
                              : unreachable(r, "reading from", rec, timeouts.request);
            });
        });
    });
    ioc.run();

    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    if (failure) return std::move(*failure);

    auto& res = parser.get();
    HttpResponse out;
    out.status = static_cast<int>(res.result_int());
    for (const auto& field : res)
        out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    out.body = std::move(res.body());
    return out;
}

}  // namespace coffer::client
