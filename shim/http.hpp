// An asynchronous HTTP/1.1 client for the daemon's loopback /mcp endpoint: keep-alive connection
// pool, responses delivered as they arrive (for SSE streams), explicit failure kinds so the
// caller knows whether a request may have reached the daemon. Runs on the caller's io_context;
// callbacks come on its thread. The only Boost.Beast translation unit of the shim is http.cpp.
#pragma once

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::shim {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct OutgoingRequest {
    std::string method = "POST"; // POST, GET, DELETE
    std::string target = "/mcp";
    HeaderList headers;          // Host, Content-Length are added
    std::string body;
};

struct ResponseHead {
    int status = 0;
    HeaderList headers;
    // Case-insensitive lookup of the first header with this name.
    std::optional<std::string_view> header(std::string_view name) const;
};

enum class Failure {
    none,        // the whole response was received
    not_sent,    // connecting failed, or aborted before writing: the daemon never saw the request
    refused,     // writing failed: the daemon closed the connection before taking the whole request
    interrupted, // the request was sent but the response broke off (the daemon may have acted on it)
    aborted,     // abort() / abort_all() was called after the request was (or was being) written
};

// Receives one exchange's response. on_end is called exactly once, last (also after abort).
class ResponseSink {
public:
    virtual ~ResponseSink() = default;
    virtual void on_head(const ResponseHead& head) = 0;
    virtual void on_data(std::string_view bytes) = 0;
    virtual void on_end(Failure failure, const std::string& what) = 0;
};

class HttpClient {
public:
    explicit HttpClient(boost::asio::io_context& io);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Where requests go (127.0.0.1:port). Changing it drops pooled connections.
    void set_port(std::uint16_t port);
    std::uint16_t port() const noexcept;

    // Starts an exchange; returns its handle for abort().
    std::uint64_t start(OutgoingRequest request, std::shared_ptr<ResponseSink> sink);
    // Ends an exchange now: its connection is closed and its sink gets on_end(aborted).
    void abort(std::uint64_t handle, const std::string& why);
    // Aborts every exchange and closes pooled connections.
    void abort_all(const std::string& why);
    // Closes pooled idle connections.
    void close_idle();
    std::size_t active() const noexcept;

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace coffer::shim
