// One HTTP(S) request as a coroutine on the caller's io_context, with one deadline for the whole
// exchange (resolve, connect, TLS, write, read). HTTPS verifies the peer against the system's CA
// store and the host name; plain HTTP is for loopback stand-ins. A transport failure (no answer)
// comes back in `error`, never as an exception; an answer of any status comes back as it is.
// Cancellation: destroying the io_context (Loop::stop) drops the request at once.
//
// The request path may hold a secret (Telegram's bot token): nothing here writes the path into
// a message; the caller redacts what it logs.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::channel_common {

struct Endpoint {
    bool tls = false;
    std::string host;         // for DNS and SNI
    std::string port;
    std::string host_header;  // host[:port] as written
    std::string base_path;    // the URL's path without a trailing '/', "" for the root
};

// Parses an http(s) base URL; nullopt with `why` when it is not one.
std::optional<Endpoint> parse_endpoint(std::string_view url, std::string& why);
bool is_loopback_host(std::string_view host);
// "" when `base` is a usable API base URL: https, or plain http on loopback (a local stand-in).
std::string api_base_problem(const boost::json::value& base);

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
    std::string method = "POST";
    std::string path;  // appended to the endpoint's base_path; starts with '/'
    std::string body;
    std::string content_type = "application/json";
    Headers headers;
    std::chrono::milliseconds timeout{10000};
};

struct HttpReply {
    int status = 0;       // 0: no answer (see error)
    std::string body;
    Headers headers;      // names lower-cased
    std::string error;    // the transport failure, "" when an answer came
    bool answered() const { return status != 0; }
    std::string header(std::string_view lower_name) const;
};

boost::asio::awaitable<HttpReply> http_request(Endpoint endpoint, HttpRequest request);

}  // namespace coffer::channel_common
