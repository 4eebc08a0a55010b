// Gateway: MCP over the daemon's Unix-domain socket (the shim's fast path, ADR 0019). One
// connection is one MCP session with stdio semantics: newline-delimited JSON-RPC both ways,
// initialize opens the session, the connection ending ends it.
//
// Before any MCP message the client authenticates with one line,
//   {"coffer":"mcp-local/1","token":"<daemon token>"}
// answered with {"coffer":"mcp-local/1","ok":true,"max_message":<bytes>} — or ok:false and an error, then the socket
// closes. Only this user can connect at all (socket mode 0600, SO_PEERCRED); the token is still
// required, as on every other way in.
#include "mcp/gateway.hpp"
#include "mcp/local_socket.hpp"

#include "core/log.hpp"
#include "core/random.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

namespace coffer::mcp {

namespace json = boost::json;

namespace {

constexpr std::string_view kProtocol = "mcp-local/1";
constexpr auto kHelloTimeout = std::chrono::seconds(10);

std::string hello_refusal(std::string_view code, std::string_view message) {
    return json::serialize(json::object{{"coffer", kProtocol},
                                        {"ok", false},
                                        {"error", json::object{{"code", code}, {"message", message}}}});
}

// Answers and related messages of every request go straight onto the connection, in order.
class LocalReply final : public ReplyChannel {
public:
    explicit LocalReply(std::weak_ptr<LocalConnection> c) : c_(std::move(c)) {}
    bool related(const std::string& message) override {
        if (message.empty()) return true;  // keep-alives: the socket needs none
        if (auto c = c_.lock()) c->write(message);
        return true;
    }
    void answer(const std::string& message, int) override {
        if (auto c = c_.lock()) c->write(message);
    }

private:
    std::weak_ptr<LocalConnection> c_;
};

// The session's server→client stream is the connection itself; ending it closes the connection.
class LocalStream final : public http::Stream {
public:
    explicit LocalStream(std::weak_ptr<LocalConnection> c) : c_(std::move(c)) {}
    void write(std::string data) override {
        if (auto c = c_.lock()) c->write(data);
    }
    void end() override {
        if (auto c = c_.lock()) c->close();
    }
    bool open() const override {
        auto c = c_.lock();
        return c && c->open();
    }

private:
    std::weak_ptr<LocalConnection> c_;
};

}  // namespace

struct Gateway::LocalClient {
    std::weak_ptr<LocalConnection> conn;
    bool authenticated = false;
    std::shared_ptr<Session> session;
    std::shared_ptr<LocalReply> reply;
    std::shared_ptr<LocalStream> stream;  // the session's server→client stream: the connection
    std::unique_ptr<boost::asio::steady_timer> hello_timer;
};

std::string Gateway::listen_local(const std::filesystem::path& path, std::function<std::string()> token) {
    local_token_ = std::move(token);
    local_ = std::make_unique<LocalListener>(net_, rpc::kMaxMessageBytes);
    auto error = local_->listen(path, [this](std::shared_ptr<LocalConnection> c) { local_open(std::move(c)); });
    if (!error.empty()) local_.reset();
    return error;
}

std::filesystem::path Gateway::local_path() const { return local_ ? local_->path() : std::filesystem::path(); }

void Gateway::local_open(std::shared_ptr<LocalConnection> conn) {
    if (stopped_) return conn->close();
    auto client = std::make_shared<LocalClient>();
    client->conn = conn;
    client->reply = std::make_shared<LocalReply>(conn);
    client->stream = std::make_shared<LocalStream>(conn);
    client->hello_timer = std::make_unique<boost::asio::steady_timer>(net_, kHelloTimeout);
    client->hello_timer->async_wait([w = std::weak_ptr<LocalConnection>(conn), client](boost::system::error_code ec) {
        if (ec || client->authenticated) return;
        if (auto c = w.lock()) {
            c->write(hello_refusal("TIMEOUT", "no hello line within 10 s"));
            c->close();
        }
    });
    std::erase_if(local_conns_, [](const auto& w) { return w.expired(); });
    local_conns_.push_back(conn);
    conn->start(LocalConnection::Handlers{
        [this, client](std::string_view line) { local_line(*client, line); },
        [client](std::size_t bytes) {
            if (auto c = client->conn.lock())
                c->write(rpc::error(nullptr, rpc::code::invalid_request,
                                    "Invalid Request: message too large (" + std::to_string(bytes) + " bytes; the limit is " +
                                        std::to_string(rpc::kMaxMessageBytes) + ")"));
        },
        [client] {
            client->hello_timer->cancel();
            if (auto s = std::move(client->session)) s->close("the client disconnected");
        }});
}

void Gateway::local_hello(LocalClient& client, LocalConnection& conn, std::string_view line) {
    boost::system::error_code ec;
    auto v = json::parse(line, ec);
    const json::object* o = !ec && v.is_object() ? &v.as_object() : nullptr;
    const json::value* proto = o ? o->if_contains("coffer") : nullptr;
    const json::value* token = o ? o->if_contains("token") : nullptr;
    if (!proto || !proto->is_string() || proto->as_string() != kProtocol) {
        conn.write(hello_refusal("BAD_HELLO", std::string("expected {\"coffer\":\"") + std::string(kProtocol) +
                                                  "\",\"token\":…} as the first line"));
        return conn.close();
    }
    if (!token || !token->is_string() || !local_token_ ||
        !core::constant_time_equal(std::string(token->as_string()), local_token_())) {
        core::log::warn("mcp local connection refused: invalid token", {});
        conn.write(hello_refusal("UNAUTHORIZED", "invalid or missing token (read it from daemon.json)"));
        return conn.close();
    }
    client.authenticated = true;
    client.hello_timer->cancel();
    conn.write(json::serialize(json::object{{"coffer", kProtocol},
                                            {"ok", true},
                                            {"max_message", static_cast<std::int64_t>(rpc::kMaxMessageBytes)}}));
}

void Gateway::local_line(LocalClient& client, std::string_view line) {
    auto conn = client.conn.lock();
    if (!conn) return;
    if (!client.authenticated) return local_hello(client, *conn, line);
    if (stopped_) return conn->close();

    auto parsed = rpc::parse(line);
    if (parsed.error) return conn->write(rpc::error(parsed.error->id, parsed.error->code, parsed.error->message));
    auto s = client.session;  // a copy: handling a message may end the connection and drop the client's
    if (parsed.batch) {
        if (!s || !allows_batch(s->version()))
            return conn->write(rpc::error(nullptr, rpc::code::invalid_request,
                                          "Invalid Request: JSON-RPC batches are only part of MCP 2025-03-26; send one "
                                          "message per line"));
        return s->handle_batch(std::move(parsed.entries),
                               [w = client.conn](std::string body, int) {
                                   if (auto c = w.lock(); c && !body.empty()) c->write(body);
                               },
                               RequestContext{s->version(), -1, {}, nullptr, {}});
    }
    auto& entry = parsed.entries.front();
    if (entry.error) return conn->write(rpc::error(entry.error->id, entry.error->code, entry.error->message));
    auto& m = *entry.message;
    bool request = m.kind == rpc::Kind::request;

    if (request && m.method == "initialize") {
        // A second initialize on one connection starts over, as a new stdio process would.
        if (auto old = std::move(client.session)) {
            old->detach_stream(client.stream);  // ending it must not end the connection
            old->close("the client initialized again");
        }
        auto admitted = open_session(Door::local, 0, Transport::local, kLatestLegacy, {});
        if (!admitted.session) return conn->write(refusal_rpc(admitted.refusal, m.id));
        client.session = s = std::move(admitted.session);
        s->attach_stream(client.stream, Framing::lines);
    } else if (!s || s->closed()) {
        client.session.reset();
        if (!request) return;  // nothing to answer
        if (m.method == "ping") return conn->write(rpc::result(m.id, "{}"));
        return conn->write(rpc::error(m.id, rpc::code::invalid_request,
                                      "Invalid Request: send initialize first (no session on this connection)"));
    }
    s->handle(std::move(m), request ? client.reply : nullptr, RequestContext{s->version(), -1, {}, nullptr, {}});
}

void Gateway::stop_local() {
    if (local_) local_->stop();
    for (auto& w : local_conns_)
        if (auto c = w.lock()) c->close();
    local_conns_.clear();
}

}  // namespace coffer::mcp
