// coffer-fake-daemon: a stand-in for coffer-daemon's /mcp in the shim's tests, so the shim's
// transport and failure model are tested on their own (the real gateway is tested end to end in
// tests/e2e). Usage: coffer-fake-daemon VAULT [TOKEN]
//
// It listens on 127.0.0.1 (any port), writes VAULT/daemon.json like the daemon does, answers
// GET /api/v1/daemon/status, and speaks a small Streamable HTTP MCP server on /mcp:
//  - initialize → JSON result + Mcp-Session-Id; notifications and responses → 202;
//  - tools/call by tool name: "echo" (JSON result, text = arguments.text), "sse" (an SSE
//    stream: a progress notification then the result), "hang" (never answers), "notify"
//    (answers, then sends notifications/tools/list_changed on the GET stream), "expire" (answers,
//    then forgets the session so the next request gets 404), "crash" (exits at once, no answer);
//  - tools/list → two tools; anything else → a JSON-RPC result {} ;
//  - a request with a wrong X-Coffer-Token → 401; an unknown Mcp-Session-Id → 404;
//  - DELETE /mcp → 200, GET /mcp → an SSE stream kept open.
// It serves no local socket; with FAKE_MCP_SOCKET=<path> it announces one in daemon.json anyway
// (where nothing listens), for the shim's fall-back tests.
// Every message received is appended to VAULT/fake-daemon.log as one line
// "<method>[ <tool>] <session> <raw body>" so tests can check what reached it.
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <set>
#include <string>

#include <sys/prctl.h>
#include <unistd.h>

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;

namespace {

std::filesystem::path g_vault;
std::string g_token;
std::set<std::string> g_sessions;
int g_session_counter = 0;

struct GetStream;
std::vector<std::weak_ptr<GetStream>> g_streams;
class Conn;
std::vector<std::shared_ptr<Conn>> g_held; // connections whose request is never answered

void log_line(const std::string& line) {
    std::ofstream out(g_vault / "fake-daemon.log", std::ios::app);
    out << line << '\n';
}

std::string rpc_result(const json::value& id, json::value result) {
    json::object o;
    o["jsonrpc"] = "2.0";
    o["id"] = id;
    o["result"] = std::move(result);
    return json::serialize(o);
}

struct GetStream : std::enable_shared_from_this<GetStream> {
    explicit GetStream(tcp::socket s) : sock(std::move(s)) {}
    tcp::socket sock;
    std::string session;
    void push(const std::string& data) {
        auto chunk = std::make_shared<std::string>();
        std::string payload = "event: message\ndata: " + data + "\n\n";
        char size[32];
        std::snprintf(size, sizeof size, "%zx\r\n", payload.size());
        *chunk = size + payload + "\r\n";
        net::async_write(sock, net::buffer(*chunk), [chunk, self = shared_from_this()](beast::error_code, std::size_t) {});
    }
};

void notify_streams(const std::string& session, const std::string& message) {
    for (auto& w : g_streams)
        if (auto s = w.lock(); s && s->session == session) s->push(message);
}

class Conn : public std::enable_shared_from_this<Conn> {
public:
    explicit Conn(tcp::socket s) : sock_(std::move(s)) {}
    void start() { read(); }

private:
    tcp::socket sock_;
    beast::flat_buffer buf_;
    http::request<http::string_body> req_;

    void read() {
        req_ = {};
        http::async_read(sock_, buf_, req_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec) return;
            self->handle();
        });
    }

    void reply(http::status status, const std::string& body, const std::string& content_type = "application/json",
               const std::string& session = {}) {
        auto res = std::make_shared<http::response<http::string_body>>(status, 11);
        res->set(http::field::content_type, content_type);
        if (!session.empty()) res->set("Mcp-Session-Id", session);
        res->keep_alive(req_.keep_alive());
        res->body() = body;
        res->prepare_payload();
        http::async_write(sock_, *res, [res, self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec) return;
            if (!res->keep_alive()) return;
            self->read();
        });
    }

    void reply_sse(const std::vector<std::string>& messages) {
        std::string body;
        int n = 0;
        for (auto& m : messages) body += "id: e" + std::to_string(++n) + "\nevent: message\ndata: " + m + "\n\n";
        reply(http::status::ok, body, "text/event-stream");
    }

    void handle() {
        std::string target(req_.target());
        if (req_.method() == http::verb::get && target == "/api/v1/daemon/status") {
            if (req_["X-Coffer-Token"] != g_token) return reply(http::status::unauthorized, R"({"error":{"code":"UNAUTHORIZED","message":"bad token"}})");
            return reply(http::status::ok, R"({"status":"ready","version":"fake"})");
        }
        if (target != "/mcp") return reply(http::status::not_found, R"({"error":{"code":"NOT_FOUND","message":"no route"}})");
        if (req_["X-Coffer-Token"] != g_token)
            return reply(http::status::unauthorized, R"({"error":{"code":"UNAUTHORIZED","message":"missing or wrong X-Coffer-Token"}})");
        std::string session(req_["Mcp-Session-Id"]);

        if (req_.method() == http::verb::delete_) {
            log_line("DELETE " + session);
            g_sessions.erase(session);
            return reply(http::status::ok, "");
        }
        if (req_.method() == http::verb::get) {
            if (!g_sessions.count(session)) return reply(http::status::not_found, "");
            log_line("GET " + session);
            auto stream = std::make_shared<GetStream>(std::move(sock_));
            stream->session = session;
            g_streams.push_back(stream);
            auto head = std::make_shared<std::string>(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
            net::async_write(stream->sock, net::buffer(*head), [head, stream](beast::error_code, std::size_t) {
                // Keep a read open to notice the client leaving.
                auto b = std::make_shared<std::array<char, 64>>();
                stream->sock.async_read_some(net::buffer(*b), [b, stream](beast::error_code, std::size_t) {});
            });
            return;
        }

        boost::system::error_code ec;
        json::value msg = json::parse(req_.body(), ec);
        if (ec || !msg.is_object())
            return reply(http::status::bad_request, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
        auto& o = msg.get_object();
        std::string method = o.contains("method") && o["method"].is_string() ? std::string(o["method"].get_string()) : "";
        std::string tool;
        if (auto* p = o.if_contains("params"); p && p->is_object())
            if (auto* n = p->get_object().if_contains("name"); n && n->is_string()) tool = std::string(n->get_string());
        log_line((method.empty() ? std::string("response") : method) + (tool.empty() ? "" : " " + tool) + " " +
                 (session.empty() ? "-" : session) + " " + req_.body());

        if (method == "initialize") {
            std::string sid = "S" + std::to_string(::getpid()) + "-" + std::to_string(++g_session_counter);
            g_sessions.insert(sid);
            json::value result = json::parse(
                R"({"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake-coffer","version":"0"}})");
            return reply(http::status::ok, rpc_result(o["id"], result), "application/json", sid);
        }
        if (!g_sessions.count(session))
            return reply(http::status::not_found, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}})");
        if (!o.contains("id") || method.empty()) return reply(http::status::accepted, "");

        json::value id = o["id"];
        if (method == "tools/list") {
            return reply(http::status::ok,
                         rpc_result(id, json::parse(R"({"tools":[{"name":"a__echo","inputSchema":{"type":"object"}},{"name":"b__echo","inputSchema":{"type":"object"}}]})")));
        }
        if (method == "tools/call") {
            if (tool == "hang") {
                g_held.push_back(shared_from_this()); // never answered; the connection stays open
                return;
            }
            if (tool == "crash") {
                log_line("CRASH");
                ::_exit(9);
            }
            std::string text;
            if (auto* a = o["params"].get_object().if_contains("arguments"); a && a->is_object())
                if (auto* t = a->get_object().if_contains("text"); t && t->is_string()) text = std::string(t->get_string());
            json::value result = {{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}, {"isError", false}};
            if (tool == "sse") {
                json::value progress = {{"jsonrpc", "2.0"}, {"method", "notifications/progress"},
                                        {"params", {{"progressToken", 1}, {"progress", 1}, {"total", 2}}}};
                return reply_sse({json::serialize(progress), rpc_result(id, result)});
            }
            reply(http::status::ok, rpc_result(id, result));
            if (tool == "notify") notify_streams(session, R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
            if (tool == "expire") g_sessions.erase(session);
            return;
        }
        reply(http::status::ok, rpc_result(id, json::object()));
    }
};

void accept(tcp::acceptor& acc) {
    acc.async_accept([&acc](beast::error_code ec, tcp::socket s) {
        if (!ec) std::make_shared<Conn>(std::move(s))->start();
        accept(acc);
    });
}

}  // namespace

int main(int argc, char** argv) {
    // `coffer-fake-daemon VAULT [TOKEN]`, or as detect-or-spawn starts a daemon: `--home VAULT`.
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() >= 2 && args[0] == "--home") args.erase(args.begin());
    if (args.empty()) {
        std::cerr << "usage: coffer-fake-daemon VAULT [TOKEN]\n";
        return 2;
    }
    ::prctl(PR_SET_NAME, "coffer-fake", 0, 0, 0); // detect-or-spawn checks for "coffer" in the name
    g_vault = args[0];
    g_token = args.size() > 1 ? args[1] : "fake-token-" + std::to_string(::getpid());
    net::io_context io(1);
    tcp::acceptor acc(io, tcp::endpoint(net::ip::address_v4::loopback(), 0));
    accept(acc);
    json::object info{{"pid", ::getpid()}, {"port", acc.local_endpoint().port()}, {"token", g_token},
                      {"version", "fake"}, {"started_at", "now"}, {"vault", g_vault.string()}};
    // FAKE_MCP_SOCKET: a local socket to announce (nothing listens there: the shim must cope).
    if (const char* sock = std::getenv("FAKE_MCP_SOCKET"); sock && *sock) info["mcp_socket"] = sock;
    std::filesystem::create_directories(g_vault);
    {
        std::ofstream out(g_vault / "daemon.json.tmp");
        out << json::serialize(info);
    }
    std::filesystem::rename(g_vault / "daemon.json.tmp", g_vault / "daemon.json");
    io.run();
}
