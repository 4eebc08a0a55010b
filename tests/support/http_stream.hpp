// Test support: an HTTP/1.1 exchange whose response is read incrementally — a chunked
// text/event-stream (SSE events one at a time) or a plain body — and, with send(), the next ones
// on the same connection. Plain sockets, no Beast.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace coffer::test {

struct SseEvent {
    std::string event;  // "" = message
    std::string data;   // data lines joined with \n
    std::string id;     // the `id` field ("" = none)
};

class HttpStream {
public:
    // Connects and sends the request (Host, Content-Length added unless given).
    HttpStream(std::uint16_t port, const std::string& method, const std::string& target, const std::string& body = "",
               const std::map<std::string, std::string>& headers = {});
    ~HttpStream();
    // The next request on the same connection (HTTP/1.1 keep-alive), once the previous response
    // was read to its end; the response state starts over. False when it cannot be sent.
    bool send(const std::string& method, const std::string& target, const std::string& body = "",
              const std::map<std::string, std::string>& headers = {});
    HttpStream(const HttpStream&) = delete;
    HttpStream& operator=(const HttpStream&) = delete;

    // Reads the status line and headers; false on time-out or a closed connection.
    bool read_head(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    int status() const { return status_; }
    std::string header(const std::string& lower_name) const;
    bool is_event_stream() const;

    // The next SSE event (comments skipped); nothing on time-out or when the stream ended.
    std::optional<SseEvent> next_event(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // The whole (remaining) body, de-chunked.
    std::string body(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    bool ended() const { return ended_; }  // the response body is complete
    void close();                          // drop the connection (the server sees a disconnect)

private:
    bool fill(std::chrono::steady_clock::time_point deadline);  // read more raw bytes
    bool decode(std::chrono::steady_clock::time_point deadline);  // move body bytes into body_
    int fd_ = -1;
    std::uint16_t port_ = 0;
    int status_ = 0;
    std::map<std::string, std::string> headers_;
    std::string raw_;   // unparsed bytes from the socket
    std::string body_;  // decoded body bytes not yet consumed
    bool chunked_ = false, ended_ = false, eof_ = false;
    long long remaining_ = -1;  // content-length left, -1 = until close
};

}  // namespace coffer::test
