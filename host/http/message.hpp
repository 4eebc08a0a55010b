// Plain request/response values, so only server.cpp sees Boost.Beast.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace coffer::http {

// The client end of one exchange, for handlers that answer later or stream. Thread-safe.
class Peer {
public:
    virtual ~Peer() = default;
    // Runs `fn` once on the network thread when the client goes away before the exchange is over
    // (at once, on the network thread, when it already has). Never runs after a normal end.
    virtual void on_disconnect(std::function<void()> fn) = 0;
    virtual bool connected() const = 0;
};

// An open, chunked response body (e.g. text/event-stream). Thread-safe; pieces go out in order.
class Stream {
public:
    virtual ~Stream() = default;
    virtual void write(std::string data) = 0;  // ignored once the stream is over
    virtual void end() = 0;                    // the last chunk; idempotent
    virtual bool open() const = 0;             // false after end() or a disconnect
    // Bytes written but not yet sent to the client (network thread only; 0 when unknown): a
    // producer that can wait (an event stream with its own bounded queue) holds back while the
    // client is slow instead of growing this until the server drops the client.
    virtual std::size_t backlog() const { return 0; }
    // write(), but on the network thread and at once instead of posted (one hand-off fewer for a
    // producer that already runs there, e.g. an event stream fanning out to many clients). Only
    // for a stream that is written from the network thread alone, so the order holds.
    virtual void write_here(std::string data) { write(std::move(data)); }
};

struct Request {
    std::string method;                         // "GET", "POST", …
    std::string target;                         // raw target: path + query
    std::string path;                           // decoded path without the query
    std::map<std::string, std::string> query;   // decoded query parameters
    std::map<std::string, std::string> headers; // lower-case names
    std::string body;
    std::shared_ptr<Peer> peer;                 // the connection this came on (never null from the server)
    std::uint64_t connection = 0;               // that connection's number, unique in this process (0: none)

    const std::string* header(const std::string& lower_name) const {
        auto it = headers.find(lower_name);
        return it == headers.end() ? nullptr : &it->second;
    }
};

struct Response {
    int status = 200;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool close = false;  // close the connection after writing
    // When set, the body is streamed: the server sends the status and headers (chunked transfer
    // encoding, `body` ignored) and hands the open stream to this function on the network thread.
    std::function<void(std::shared_ptr<Stream>)> on_stream;
};

// Completes a request; callable from any thread, exactly once.
using Respond = std::function<void(Response)>;
using Handler = std::function<void(Request&&, Respond)>;
// Builds the response for an error the server detects itself (oversized or unparsable request).
// `target` is the request target when the head could be read, else empty.
using ErrorResponder =
    std::function<Response(int status, const std::string& code, const std::string& message, const std::string& target)>;

}  // namespace coffer::http
