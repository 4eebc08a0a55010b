// Reply channels of the HTTP transports.
#pragma once

#include "http/message.hpp"
#include "mcp/exchange.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace coffer::mcp {

class Session;

// Streamable HTTP POST: answers with application/json, or — once a related message must go
// out ahead of the answer and the client accepts it — upgrades to a text/event-stream that ends
// with the answer.
class HttpReply final : public ReplyChannel, public std::enable_shared_from_this<HttpReply> {
public:
    using Headers = std::vector<std::pair<std::string, std::string>>;
    HttpReply(http::Respond respond, bool can_stream, Headers headers);

    bool related(const std::string& message) override;  // "" = keep-alive comment
    void answer(const std::string& message, int http_status) override;
    void drop() override;

private:
    void attach(std::shared_ptr<http::Stream> stream);
    void write(const std::string& message);

    http::Respond respond_;
    bool can_stream_;
    Headers headers_;
    enum class State { waiting, streaming, over } state_ = State::waiting;
    std::shared_ptr<http::Stream> stream_;
    std::vector<std::string> backlog_;
    bool end_when_attached_ = false;
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
