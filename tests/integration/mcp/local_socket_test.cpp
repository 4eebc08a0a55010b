// MCP over the daemon's Unix-domain socket (ADR 0019): daemon.json names it, mode 0600, the hello
// line with the token is required (wrong token, wrong hello → refused and closed), one connection
// is one session with stdio framing (initialize opens it, the connection ending closes it and its
// provider links), bad input gets JSON-RPC errors and the connection goes on, related messages
// (progress) and server-initiated requests arrive on the same stream, the socket goes away with
// the daemon, and another user cannot connect.
#define BOOST_TEST_MODULE mcp_local_socket
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string socket_path(Daemon& d) {
    std::ifstream in(d.vault() / "daemon.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto info = parse(text);
    return std::string(info.at("mcp_socket").as_string());
}

int connect_to(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.data(), path.size());
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        int e = errno;
        ::close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

// A line client on the socket, blocking with timeouts.
class Line {
public:
    explicit Line(const std::string& path) : fd_(connect_to(path)) { BOOST_REQUIRE_MESSAGE(fd_ >= 0, "connect: " << std::strerror(errno)); }
    ~Line() {
        if (fd_ >= 0) ::close(fd_);
    }
    void send_raw(const std::string& bytes) {
        std::size_t off = 0;
        while (off < bytes.size()) {
            auto n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return;
            off += static_cast<std::size_t>(n);
        }
    }
    void send(std::string_view line) { send_raw(std::string(line) + "\n"); }
    void send(const json::object& v) { send(json::serialize(v)); }
    // The next line, or nullopt on EOF/timeout (eof() tells which).
    std::optional<std::string> next(std::chrono::milliseconds timeout = 5s) {
        auto deadline = std::chrono::steady_clock::now() + timeout;
        while (true) {
            if (auto nl = buf_.find('\n'); nl != std::string::npos) {
                auto line = buf_.substr(0, nl);
                buf_.erase(0, nl + 1);
                return line;
            }
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return std::nullopt;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
            char chunk[65536];
            auto n = ::recv(fd_, chunk, sizeof(chunk), 0);
            if (n <= 0) {
                eof_ = true;
                return std::nullopt;
            }
            buf_.append(chunk, static_cast<std::size_t>(n));
        }
    }
    json::value next_json(std::chrono::milliseconds timeout = 5s) {
        auto l = next(timeout);
        BOOST_REQUIRE_MESSAGE(l, "no line from the daemon");
        return parse(*l);
    }
    // Messages until the response with `id` (collected notifications/requests in `before`).
    json::value response(int id, std::vector<json::value>* before = nullptr, std::chrono::milliseconds timeout = 5s) {
        while (true) {
            auto v = next_json(timeout);
            auto* o = v.if_object();
            if (o && o->contains("id") && !o->contains("method") && o->at("id") == json::value(id)) return v;
            if (before) before->push_back(v);
        }
    }
    bool closed_by_peer(std::chrono::milliseconds timeout = 5s) {
        while (next(timeout)) {
        }
        return eof_;
    }
    void hello(const std::string& token) {
        send(json::object{{"coffer", "mcp-local/1"}, {"token", token}});
        auto a = next_json();
        BOOST_REQUIRE_MESSAGE(a.at("ok").as_bool(), json::serialize(a));
        BOOST_TEST(a.at("max_message").as_int64() > 1000000);
    }
    void initialize(const std::string& agent = "") {
        json::object params{{"protocolVersion", "2025-06-18"},
                            {"capabilities", json::object{{"elicitation", json::object{}}}},
                            {"clientInfo", json::object{{"name", "local-test"}, {"version", "1"}}}};
        if (!agent.empty()) params["_meta"] = json::object{{"coffer/agent", agent}};
        send(json::object{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", params}});
        auto r = response(1);
        BOOST_REQUIRE_MESSAGE(r.as_object().contains("result"), json::serialize(r));
        BOOST_TEST(r.at("result").at("protocolVersion").as_string() == "2025-06-18");
        send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    }
    json::value call(int id, const std::string& tool, json::object args = {}) {
        send(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                          {"params", json::object{{"name", tool}, {"arguments", args}}}});
        return response(id);
    }
    int fd() const { return fd_; }

private:
    int fd_;
    std::string buf_;
    bool eof_ = false;
};

struct Fixture : EchoDaemon {
    Fixture() { add_echo(d, "a"); }
};

std::string text_of(const json::value& r) { return std::string(r.at("result").at("content").at(0).at("text").as_string()); }

}  // namespace

BOOST_FIXTURE_TEST_CASE(socket_is_published_private_and_removed_on_stop, Fixture) {
    auto path = socket_path(d);
    BOOST_TEST(path == (d.vault() / "mcp.sock").string());
    struct stat st{};
    BOOST_REQUIRE(::lstat(path.c_str(), &st) == 0);
    BOOST_TEST(S_ISSOCK(st.st_mode));
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    BOOST_TEST(d.stop() == 0);
    BOOST_TEST(!fs::exists(path));
    BOOST_TEST(connect_to(path) < 0);
}

BOOST_FIXTURE_TEST_CASE(hello_requires_the_token, Fixture) {
    auto path = socket_path(d);
    {
        Line l(path);
        l.send(json::object{{"coffer", "mcp-local/1"}, {"token", "not-the-token"}});
        auto a = l.next_json();
        BOOST_TEST(a.at("ok").as_bool() == false);
        BOOST_TEST(a.at("error").at("code").as_string() == "UNAUTHORIZED");
        BOOST_TEST(l.closed_by_peer());
    }
    {
        Line l(path);  // an MCP message instead of the hello: refused, nothing runs
        l.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":"x"}}})");
        auto a = l.next_json();
        BOOST_TEST(a.at("ok").as_bool() == false);
        BOOST_TEST(a.at("error").at("code").as_string() == "BAD_HELLO");
        BOOST_TEST(l.closed_by_peer());
    }
    {
        Line l(path);
        l.send("\x01\x02 not json");
        BOOST_TEST(l.next_json().at("ok").as_bool() == false);
        BOOST_TEST(l.closed_by_peer());
    }
    BOOST_TEST(echo_status(d, "a").at("opened").as_int64() == 0);  // no session ever reached the provider
    // A token rotated meanwhile: the old one is refused on new connections.
    auto old = d.token();
    BOOST_REQUIRE(d.call("POST", "/api/v1/daemon/rotate-token").status == 200);
    d.reload_state();
    {
        Line l(path);
        l.send(json::object{{"coffer", "mcp-local/1"}, {"token", old}});
        BOOST_TEST(l.next_json().at("ok").as_bool() == false);
    }
    Line ok(path);
    ok.hello(d.token());
    ok.initialize();
    BOOST_TEST(text_of(ok.call(2, "a__echo", {{"text", "after rotation"}})).find("after rotation") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(one_connection_is_one_session, Fixture) {
    auto path = socket_path(d);
    {
        Line l(path);
        l.hello(d.token());
        // Before initialize: ping works, anything else is refused, notifications are ignored.
        l.send(R"({"jsonrpc":"2.0","id":"p","method":"ping"})");
        BOOST_TEST(l.next_json().at("result").as_object().empty());
        l.send(R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})");
        auto e = l.next_json();
        BOOST_TEST(e.at("id").as_int64() == 5);
        BOOST_TEST(e.at("error").at("code").as_int64() == -32600);
        l.initialize("local-agent");
        BOOST_TEST(d.call_json("GET", "/api/v1/daemon/status").at("status").as_string() == "ready");

        l.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
        auto names = names_of(l.response(2));
        BOOST_TEST((std::find(names.begin(), names.end(), "a__echo") != names.end()));
        // The result comes back byte for byte (the echo tool answers with odd spacing and 1.50).
        l.send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":"hi"}}})");
        auto raw = l.next();
        BOOST_REQUIRE(raw);
        BOOST_TEST(raw->find("1.50") != std::string::npos);
        BOOST_TEST(parse(*raw).at("id").as_int64() == 3);
        // The session carries the identity given in initialize.
        auto who = parse(text_of(l.call(4, "a__whoami")));
        BOOST_TEST(who.at("agent").as_string() == "local-agent");

        // Several calls written at once, answered on the same stream (order of answers free).
        std::string burst;
        for (int i = 0; i < 20; ++i)
            burst += R"({"jsonrpc":"2.0","id":)" + std::to_string(100 + i) +
                     R"(,"method":"tools/call","params":{"name":"a__search","arguments":{"query":"q)" + std::to_string(i) +
                     "\"}}}\n";
        l.send_raw(burst);
        std::set<std::int64_t> seen;
        for (int i = 0; i < 20; ++i) {
            auto r = l.next_json();
            seen.insert(r.at("id").as_int64());
            BOOST_TEST(text_of(r).find("q" + std::to_string(r.at("id").as_int64() - 100)) != std::string::npos);
        }
        BOOST_TEST(seen.size() == 20u);

        // Progress goes ahead of its result on the same stream.
        l.send(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"a__slow","arguments":{"ms":30,"steps":3},"_meta":{"progressToken":"pt"}}})");
        std::vector<json::value> before;
        auto slow = l.response(6, &before);
        BOOST_TEST(slow.as_object().contains("result"));
        int progress = 0;
        for (auto& m : before)
            if (m.at("method").as_string() == "notifications/progress" && m.at("params").at("progressToken") == json::value("pt"))
                ++progress;
        BOOST_TEST(progress == 3);

        // A server-initiated request (elicitation) reaches us and our answer reaches the tool.
        l.send(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__ask","arguments":{}}})");
        auto ask = l.next_json();
        BOOST_REQUIRE(ask.as_object().contains("method"));
        BOOST_TEST(ask.at("method").as_string() == "elicitation/create");
        l.send(json::object{{"jsonrpc", "2.0"},
                            {"id", ask.at("id")},
                            {"result", json::object{{"action", "accept"}, {"content", json::object{{"answer", "forty-two"}}}}}});
        BOOST_TEST(text_of(l.response(7)).find("forty-two") != std::string::npos);
        BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 1);
    }
    // The connection ended: so did the session and its provider link.
    BOOST_TEST(eventually([&] { return echo_status(d, "a").at("open").as_int64() == 0; }));
    BOOST_TEST(echo_status(d, "a").at("closed").as_int64() == 1);
}

BOOST_FIXTURE_TEST_CASE(bad_input_gets_errors_and_the_connection_goes_on, Fixture) {
    Line l(socket_path(d));
    l.hello(d.token());
    l.initialize();
    l.send("{not json");
    BOOST_TEST(l.next_json().at("error").at("code").as_int64() == -32700);
    l.send("[1,2]");  // a batch on a 2025-06-18 session
    BOOST_TEST(l.next_json().at("error").at("code").as_int64() == -32600);
    l.send(R"({"jsonrpc":"2.0","id":9,"method":"no/such"})");
    BOOST_TEST(l.next_json().at("error").at("code").as_int64() == -32601);
    l.send(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nounderscore"}})");
    BOOST_TEST(l.next_json().at("error").at("code").as_int64() == -32602);
    l.send_raw(std::string("{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\",\"x\":\"\xff\xfe\"}\n"));
    auto utf = l.next_json();
    BOOST_TEST(utf.as_object().contains("error"));
    // A line over the limit (4 MiB) is dropped whole and answered; the next one works.
    l.send(R"({"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":")" +
           std::string(5u << 20, 'x') + "\"}}}");
    auto big = l.next_json(20s);
    BOOST_TEST(big.at("error").at("code").as_int64() == -32600);
    BOOST_TEST(std::string(big.at("error").at("message").as_string()).find("too large") != std::string::npos);
    BOOST_TEST(text_of(l.call(13, "a__echo", {{"text", "still here"}})).find("still here") != std::string::npos);
    // initialize again on the same connection: a fresh session (the old link is closed).
    l.initialize();
    BOOST_TEST(eventually([&] { return echo_status(d, "a").at("closed").as_int64() == 1; }));
    BOOST_TEST(text_of(l.call(14, "a__echo", {{"text", "again"}})).find("again") != std::string::npos);
    BOOST_TEST(d.call_json("GET", "/api/v1/daemon/status").at("status").as_string() == "ready");
}

BOOST_FIXTURE_TEST_CASE(a_client_that_does_not_read_is_paused_not_lost, Fixture) {
    auto path = socket_path(d);
    Line slow(path);
    slow.hello(d.token());
    slow.initialize();
    auto call_line = [](int id, const std::string& tool, const std::string& args) {
        return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + tool +
               R"(","arguments":)" + args + "}}\n";
    };
    // 1. 300 answers of 100 KB (30 MB) that this client does not read: they pile up in the daemon.
    std::string big;
    for (int i = 0; i < 300; ++i) big += call_line(1000 + i, "a__big", R"({"bytes":100000})");
    slow.send_raw(big);
    std::this_thread::sleep_for(1000ms);
    // 2. 10,000 more requests (1.1 MB, more than the socket buffers hold): with answers waiting,
    //    the daemon stops reading this client, so this write cannot finish.
    std::string more;
    for (int i = 0; i < 10000; ++i) more += call_line(5000 + i, "a__echo", R"({"text":"s"})");
    std::atomic<bool> written{false};
    std::thread writer([&] {
        slow.send_raw(more);
        written = true;
    });
    std::this_thread::sleep_for(1500ms);
    BOOST_TEST(!written.load());  // paused
    {
        Line other(path);  // others are served meanwhile
        other.hello(d.token());
        other.initialize();
        BOOST_TEST(text_of(other.call(2, "a__echo", {{"text", "served"}})).find("served") != std::string::npos);
    }
    // 3. Reading resumes the client: every answer arrives, each once.
    std::set<std::int64_t> got;
    for (int i = 0; i < 10300; ++i) {
        auto r = slow.next_json(20s);
        BOOST_REQUIRE(r.as_object().contains("result"));
        got.insert(r.at("id").as_int64());
    }
    writer.join();
    BOOST_TEST(written.load());
    BOOST_TEST(got.size() == 10300u);
}

BOOST_FIXTURE_TEST_CASE(the_connection_closes_with_the_daemon, Fixture) {
    Line l(socket_path(d));
    l.hello(d.token());
    l.initialize();
    l.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a__hang","arguments":{}}})");
    std::this_thread::sleep_for(100ms);
    BOOST_TEST(d.stop() == 0);
    // The call in flight is answered (the session ended), then the stream ends.
    auto r = l.next_json();
    BOOST_TEST(r.at("id").as_int64() == 2);
    BOOST_TEST(r.as_object().contains("error"));
    BOOST_TEST(l.closed_by_peer());
}

BOOST_FIXTURE_TEST_CASE(another_user_cannot_connect, Fixture) {
    auto path = socket_path(d);
    struct stat st{};
    BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
    BOOST_TEST(st.st_uid == ::geteuid());
    BOOST_TEST((st.st_mode & 0077) == 0u);
    if (::geteuid() != 0) return;  // switching to another user needs root (CI runs as root)
    pid_t pid = ::fork();
    if (pid == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
        int fd = connect_to(path);  // 0600 root-owned socket in a 0700 vault: refused
        ::_exit(fd < 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
}
