// One HTTP(S) POST with a deadline, for the embeddings client: Boost.Beast over Asio, TLS with
// the system's CA store, host name verification and SNI. The only file that includes Beast, so
// the rest of the library compiles quickly. Plain request and answer; retries are the caller's.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::retrieval {

struct Endpoint {
    bool tls = false;
    std::string host;         // for DNS, SNI and certificate checks (no brackets)
    std::string port;
    std::string host_header;  // host[:port] as in the URL
    std::string target;       // path of the request
};

// `base_url` (http or https, no user:password) with `suffix` appended to its path. Throws
// Error(invalid) naming what is wrong (the URL itself is not repeated: it might hold a token).
Endpoint parse_endpoint(std::string_view base_url, std::string_view suffix);

struct HttpReply {
    int status = 0;
    std::string body;
    std::string retry_after;  // the Retry-After header, if any
};

class HttpPoster {
public:
    explicit HttpPoster(Endpoint ep);
    ~HttpPoster();
    HttpPoster(const HttpPoster&) = delete;
    HttpPoster& operator=(const HttpPoster&) = delete;

    const Endpoint& endpoint() const { return ep_; }
    // Sends one request on a fresh connection. Throws Error(unavailable) when no answer arrives
    // in time (DNS, connect, TLS, I/O); the message says which step failed, never a header.
    HttpReply post(const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
                   std::chrono::milliseconds timeout);

private:
    struct Tls;
    Endpoint ep_;
    std::unique_ptr<Tls> tls_;
};

}  // namespace coffer::retrieval
