// One HTTP(S) exchange with a deadline: Boost.Beast over Asio on a private io_context, TLS with the
// system's CA store, host name verification and SNI. Redirects are not followed (the caller sees
// 3xx and its Location). The only file of this library that includes Beast.
#pragma once

#include "http_client/url.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::http_client {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
    std::string method = "GET";
    Url url;
    Headers headers;    // sent as given (Host, Content-Length and Connection are set here)
    std::string body;   // sent when not empty, or always for POST/PUT/PATCH
};

struct Reply {
    int status = 0;
    Headers headers;    // names as received
    std::string body;
    // The first header of that name, compared case-insensitively.
    std::optional<std::string> header(std::string_view name) const;
};

class Client {
public:
    Client();
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // Sends one request on a fresh connection and reads the whole answer (at most `max_body`
    // bytes). Throws Error when no answer arrives within `timeout` or the exchange fails; the
    // message says which step (resolving, connecting, the TLS handshake, sending, reading).
    Reply fetch(const Request& req, std::chrono::milliseconds timeout, std::size_t max_body = 16 * 1024 * 1024);

private:
    struct Tls;
    std::unique_ptr<Tls> tls_;  // made on the first https request
};

}  // namespace coffer::http_client
