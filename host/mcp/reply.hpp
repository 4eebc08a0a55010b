// Reply channels of the HTTP transports.
#pragma once

#include "http/message.hpp"
#include "mcp/exchange.hpp"
#include "mcp/resumable.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace coffer::mcp {

class Session;

// Streamable HTTP POST: answers with application/json, or — once a related message must go
// out ahead of the answer and the client accepts it — upgrades to a text/event-stream that ends
// with the answer. With a Resumption (sessions before 2026-07-28) that stream is an EventStream
// of the session's: its events carry ids and are kept, so when the POST's connection breaks (which
// is not a cancellation there) the rest of the exchange, answer included, waits for the client's
// GET + Last-Event-ID.
class HttpReply final : public ReplyChannel {
public:
    using Headers = std::vector<std::pair<std::string, std::string>>;
    HttpReply(http::Respond respond, bool can_stream, Headers headers, Resumption resumption = {});

    bool related(const std::string& message) override;  // "" = keep-alive comment
    void answer(const std::string& message, int http_status) override;
    void drop() override;

private:
    void upgrade();

    http::Respond respond_;
    bool can_stream_;
    Headers headers_;
    Resumption resumption_;
    enum class State { waiting, streaming, over } state_ = State::waiting;
    // Also holds what goes out before the HTTP stream exists (after the exchange may be gone).
    std::shared_ptr<EventStream> events_;
};

// Legacy HTTP+SSE (/messages): everything for the request goes on the session's /sse stream.
class SessionStreamReply final : public ReplyChannel {
public:
    explicit SessionStreamReply(std::weak_ptr<Session> session) : session_(std::move(session)) {}
    bool related(const std::string& message) override;
    void answer(const std::string& message, int http_status) override;

private:
    std::weak_ptr<Session> session_;
};

}  // namespace coffer::mcp
