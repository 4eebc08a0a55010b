// coffer-mcp-shim against coffer-fake-daemon (a scripted /mcp, see fake_daemon.cpp): the stdio
// framing, the _meta it adds to initialize, SSE and the GET stream, and the failure model —
// a daemon killed while a request waits (error within 1 s, no re-send, the next request works
// after a transparent re-initialize), an expired session, no daemon with --no-spawn, spawning
// (and re-spawning) a daemon, bad input, stdin closing with a request in flight.
#define BOOST_TEST_MODULE shim
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"
#include "stdio_child.hpp"

#include <boost/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

fs::path shim_bin() { return bin_dir() / "coffer-mcp-shim"; }
fs::path fake_bin() { return fs::path(COFFER_FAKE_DAEMON); }

using Child = StdioChild;  // tests/support/stdio_child.hpp

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int count_of(const std::string& hay, const std::string& needle) {
    int n = 0;
    for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
    return n;
}

// A fake daemon for a vault (started directly, not detached): waits for its daemon.json.
class Fake {
public:
    explicit Fake(const fs::path& vault, std::map<std::string, std::string> env = {}) : vault_(vault) {
        fs::remove(vault / "daemon.json");
        pid_ = spawn({fake_bin().string(), vault.string()}, env, vault / "fake-daemon.stderr");
        auto deadline = Clock::now() + 10s;
        while (!fs::exists(vault / "daemon.json") && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
        BOOST_REQUIRE_MESSAGE(fs::exists(vault / "daemon.json"), "the fake daemon did not start");
    }
    ~Fake() { kill9(); }
    void kill9() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            wait_pid(pid_, 5s);
            pid_ = -1;
        }
    }
    pid_t pid() const { return pid_; }

private:
    fs::path vault_;
    pid_t pid_ = -1;
};

struct Env {
    TempDir dir;
    fs::path vault = dir.path() / "vault";
    fs::path work = dir.path() / "work";
    Env() {
        fs::create_directories(vault);
        fs::create_directories(work);
    }
    std::map<std::string, std::string> env(bool allow_spawn = false) const {
        return {{"COFFER_HOME", vault.string()},
                {"COFFER_NO_SPAWN", allow_spawn ? "" : "1"},
                {"COFFER_DAEMON_BIN", allow_spawn ? fake_bin().string() : ""},
                {"COFFER_PORT", "0"}};
    }
    std::unique_ptr<Child> shim(std::vector<std::string> extra = {}, bool allow_spawn = false) {
        std::vector<std::string> argv{shim_bin().string()};
        for (auto& e : extra) argv.push_back(e);
        // Run it from `work` (reported as coffer/cwd).
        auto old = fs::current_path();
        fs::current_path(work);
        auto c = std::make_unique<Child>(argv, env(allow_spawn), dir.path() / "shim.stderr");
        fs::current_path(old);
        return c;
    }
    std::string log() const { return read_file(vault / "fake-daemon.log"); }
    std::string shim_log() const { return read_file(dir.path() / "shim.stderr"); }
};

const char* kInit =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})";
const char* kInitialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

std::string call(int id, const std::string& tool, const std::string& text = "hi") {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + tool +
           R"(","arguments":{"text":")" + text + R"("}}})";
}

std::string text_of(const json::value& response) {
    try {
        return std::string(response.at("result").at("content").at(0).at("text").as_string());
    } catch (...) {
        return "<no text: " + json::serialize(response) + ">";
    }
}

void handshake(Child& shim) {
    shim.send(kInit);
    auto r = shim.response(1, 10s);
    BOOST_REQUIRE_MESSAGE(r, "no initialize response");
    BOOST_REQUIRE(r->at("result").at("serverInfo").at("name").as_string() == "fake-coffer");
    shim.send(kInitialized);
}

}  // namespace

BOOST_AUTO_TEST_CASE(bridges_messages_both_ways) {
    Env e;
    Fake fake(e.vault);
    auto shim = e.shim({"--agent", "tester"});
    handshake(*shim);

    // initialize carried our identity.
    auto log = e.log();
    BOOST_TEST(log.find(R"("coffer/agent":"tester")") != std::string::npos, log);
    BOOST_TEST(log.find(R"("coffer/cwd":")" + fs::canonical(e.work).string() + "\"") != std::string::npos, log);

    shim->send(call(2, "echo", "hello"));
    auto r = shim->response(2);
    BOOST_REQUIRE(r);
    BOOST_TEST(text_of(*r) == "hello");

    // An SSE response: the progress notification reaches the client before the result.
    std::vector<json::value> seen;
    shim->send(call(3, "sse", "streamed"));
    r = shim->response(3, 5000ms, &seen);
    BOOST_REQUIRE(r);
    BOOST_TEST(text_of(*r) == "streamed");
    BOOST_REQUIRE(seen.size() == 1u);
    BOOST_TEST(seen[0].at("method").as_string() == "notifications/progress");

    // A notification on the GET stream (server-initiated, outside any request).
    seen.clear();
    shim->send(call(4, "notify"));
    r = shim->response(4, 5000ms, &seen);
    BOOST_REQUIRE(r);
    if (seen.empty()) {
        auto l = shim->line(3000ms);
        BOOST_REQUIRE_MESSAGE(l, "no list_changed on the GET stream");
        seen.push_back(parse(*l));
    }
    BOOST_TEST(seen[0].at("method").as_string() == "notifications/tools/list_changed");

    // Responses keep the daemon's bytes (one line) and ids are never rewritten.
    shim->send(R"({"jsonrpc":"2.0","id":"str-id","method":"tools/list","params":{}})");
    auto l = shim->line();
    BOOST_REQUIRE(l);
    BOOST_TEST(l->find(R"("id":"str-id")") != std::string::npos);
    BOOST_TEST(l->find("a__echo") != std::string::npos);

    // stdin closes: the session is deleted and the shim exits 0.
    shim->close_stdin();
    BOOST_TEST(shim->wait(5s) == 0);
    BOOST_TEST(e.log().find("DELETE S") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(daemon_killed_while_a_request_waits) {
    Env e;
    auto fake = std::make_unique<Fake>(e.vault);
    auto shim = e.shim({"--agent", "tester"});
    handshake(*shim);
    shim->send(call(2, "echo"));
    BOOST_REQUIRE(shim->response(2));

    shim->send(call(3, "hang"));
    auto deadline = Clock::now() + 5s;
    while (count_of(e.log(), "tools/call hang") == 0 && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    BOOST_REQUIRE(count_of(e.log(), "tools/call hang") == 1);

    auto killed_at = Clock::now();
    fake->kill9();
    auto r = shim->response(3, 1000ms);
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed_at).count();
    BOOST_REQUIRE_MESSAGE(r, "no error for the pending request within 1 s");
    BOOST_TEST(r->get_object().contains("error"));
    BOOST_TEST(took < 1000);
    BOOST_TEST_MESSAGE("error " << took << " ms after kill -9: " << json::serialize(*r));

    // A new daemon; the next request works after a transparent re-initialize, and the hanging
    // call was not sent again.
    fs::rename(e.vault / "fake-daemon.log", e.vault / "fake-daemon-1.log");
    Fake second(e.vault);
    std::vector<json::value> seen;
    shim->send(call(4, "echo", "again"));
    r = shim->response(4, 10s, &seen);
    BOOST_REQUIRE_MESSAGE(r, e.shim_log());
    BOOST_TEST(text_of(*r) == "again");
    auto log2 = e.log();
    BOOST_TEST(count_of("\n" + log2, "\ninitialize ") == 1, log2);
    BOOST_TEST(log2.find(R"("coffer/agent":"tester")") != std::string::npos);
    BOOST_TEST(count_of("\n" + log2, "\nnotifications/initialized ") == 1, log2);
    BOOST_TEST(count_of(log2, "hang") == 0);
    // The client is told the lists may have changed.
    bool told = false;
    for (auto& v : seen)
        if (v.is_object() && v.get_object().contains("method") && v.at("method").as_string() == "notifications/tools/list_changed")
            told = true;
    BOOST_TEST(told);
}

BOOST_AUTO_TEST_CASE(daemon_crash_mid_call_then_no_daemon) {
    Env e;
    auto fake = std::make_unique<Fake>(e.vault);
    auto shim = e.shim();
    handshake(*shim);
    auto sent = Clock::now();
    shim->send(call(2, "crash"));
    auto r = shim->response(2, 1000ms);
    BOOST_REQUIRE_MESSAGE(r, "no error within 1 s after the daemon crashed");
    BOOST_TEST(r->get_object().contains("error"));
    BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count() < 1000);
    fake->kill9(); // reap it

    // No daemon and no spawning: an error, quickly; never a hang.
    sent = Clock::now();
    shim->send(call(3, "echo"));
    r = shim->response(3, 5000ms);
    BOOST_REQUIRE(r);
    BOOST_TEST(r->at("error").at("code").as_int64() == -32000);
    BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent).count() < 3000);
}

BOOST_AUTO_TEST_CASE(expired_session_is_reopened_transparently) {
    Env e;
    Fake fake(e.vault);
    auto shim = e.shim();
    handshake(*shim);
    shim->send(call(2, "expire"));
    BOOST_REQUIRE(shim->response(2));
    shim->send(call(3, "echo", "after"));
    auto r = shim->response(3, 10s);
    BOOST_REQUIRE(r);
    BOOST_TEST(text_of(*r) == "after");
    auto log = e.log();
    BOOST_TEST(count_of("\n" + log, "\ninitialize ") == 2, log);      // the client's and the shim's
    BOOST_TEST(count_of(log, "tools/call echo") == 2, log);  // refused with 404 (not run), then run
}

BOOST_AUTO_TEST_CASE(no_daemon_and_no_spawn) {
    Env e;
    auto shim = e.shim();
    shim->send(kInit);
    auto r = shim->response(1, 5000ms);
    BOOST_REQUIRE(r);
    BOOST_TEST(r->at("error").at("code").as_int64() == -32000);
    BOOST_TEST(std::string(r->at("error").at("message").as_string()).find("coffer-daemon") != std::string::npos);
    shim->close_stdin();
    BOOST_TEST(shim->wait(5s) == 0);
}

BOOST_AUTO_TEST_CASE(spawns_and_respawns_the_daemon) {
    Env e;
    auto shim = e.shim({}, /*allow_spawn=*/true);
    handshake(*shim);
    auto first = coffer::test::parse(read_file(e.vault / "daemon.json"));
    int pid1 = static_cast<int>(first.at("pid").as_int64());
    shim->send(call(2, "hang"));
    auto deadline = Clock::now() + 5s;
    while (count_of(e.log(), "tools/call hang") == 0 && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    ::kill(pid1, SIGKILL);
    auto r = shim->response(2, 1000ms);
    BOOST_REQUIRE_MESSAGE(r, "no error within 1 s");
    BOOST_TEST(r->get_object().contains("error"));

    shim->send(call(3, "echo", "respawned"));
    r = shim->response(3, 15s);
    BOOST_REQUIRE_MESSAGE(r, e.shim_log());
    BOOST_TEST(text_of(*r) == "respawned");
    auto second = coffer::test::parse(read_file(e.vault / "daemon.json"));
    int pid2 = static_cast<int>(second.at("pid").as_int64());
    BOOST_TEST(pid2 != pid1);
    BOOST_TEST(count_of(e.log(), "tools/call hang") == 1); // never re-sent
    shim->close_stdin();
    BOOST_TEST(shim->wait(5s) == 0);
    ::kill(pid2, SIGKILL);
}

BOOST_AUTO_TEST_CASE(an_unusable_local_socket_falls_back_to_http) {
    Env e;
    Fake fake(e.vault, {{"FAKE_MCP_SOCKET", (e.dir.path() / "nobody-listens.sock").string()}});
    auto shim = e.shim({"--verbose"});  // --transport auto (the default)
    handshake(*shim);
    shim->send(call(2, "echo", "over http"));
    auto r = shim->response(2);
    BOOST_REQUIRE_MESSAGE(r, e.shim_log());
    BOOST_TEST(text_of(*r) == "over http");
    BOOST_TEST(count_of(e.log(), "tools/call echo") == 1);  // it reached the (HTTP-only) daemon
    BOOST_TEST(e.shim_log().find("using HTTP") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(transport_local_does_not_fall_back) {
    Env e;
    Fake fake(e.vault);  // announces no socket
    auto shim = e.shim({"--transport", "local"});
    shim->send(kInit);
    auto r = shim->response(1, 5000ms);
    BOOST_REQUIRE(r);
    BOOST_TEST(r->at("error").at("code").as_int64() == -32000);
    BOOST_TEST(std::string(r->at("error").at("message").as_string()).find("local socket") != std::string::npos);
    BOOST_TEST(count_of(e.log(), "initialize") == 0);  // nothing went over HTTP
    shim->close_stdin();
    BOOST_TEST(shim->wait(5s) == 0);
}

BOOST_AUTO_TEST_CASE(bad_input_and_framing) {
    Env e;
    Fake fake(e.vault);
    auto shim = e.shim();
    handshake(*shim);
    // Blank lines are skipped; CRLF line ends are accepted.
    shim->send("");
    shim->send("   ");
    shim->send(call(2, "echo", "crlf") + "\r");
    auto r = shim->response(2);
    BOOST_REQUIRE(r);
    BOOST_TEST(text_of(*r) == "crlf");
    // Malformed JSON: the daemon's parse error (id null) reaches the client; the shim lives on.
    shim->send("{not json");
    auto l = shim->line();
    BOOST_REQUIRE(l);
    auto v = parse(*l);
    BOOST_TEST(v.at("error").at("code").as_int64() == -32700);
    BOOST_TEST(v.at("id").is_null());
    shim->send(call(3, "echo", "still here"));
    r = shim->response(3);
    BOOST_REQUIRE(r);
    BOOST_TEST(text_of(*r) == "still here");
}

// A client that stops reading its answers: once ~8 MiB of them wait, the shim stops reading its
// requests (the client's writes block instead of the shim's memory growing). When the client
// reads again, every answer arrives, once.
BOOST_AUTO_TEST_CASE(a_client_that_does_not_read_is_not_read_either) {
    Env e;
    Fake fake(e.vault);
    auto shim = e.shim();
    handshake(*shim);
    const int calls = 800;
    const std::string text(100000, 'x');
    std::string all;
    for (int i = 0; i < calls; ++i) all += call(10 + i, "echo", text) + "\n";  // 80 MB of requests
    auto taken = shim->send_until_stalled(all, 2000ms);
    BOOST_TEST_MESSAGE("the shim took " << taken << " of " << all.size() << " bytes before stalling");
    BOOST_TEST(taken > 8u * 1000 * 1000);   // it stopped because answers waited, not before
    // At most 8 MiB of answers waiting for the client plus 32 MiB of requests the daemon has not
    // answered yet (the shim's two flow controls; 20–37 MB measured here, under load too); without
    // them it reads all 80 MB.
    BOOST_TEST(taken < 50u * 1000 * 1000);
    // The rest goes in from another thread while this one reads.
    std::thread rest([&] {
        std::size_t off = taken;
        while (off < all.size()) {
            ssize_t n = ::write(shim->stdin_fd(), all.data() + off, all.size() - off);
            if (n <= 0) break;
            off += static_cast<std::size_t>(n);
        }
    });
    std::vector<int> seen(calls, 0);
    int got = 0;
    while (got < calls) {
        auto l = shim->line(10000ms);
        if (!l) break;
        auto v = parse(*l);
        if (!v.is_object() || !v.as_object().contains("id")) continue;
        auto id = v.at("id").as_int64() - 10;
        BOOST_REQUIRE(id >= 0 && id < calls);
        BOOST_TEST(text_of(v).size() == text.size());
        ++seen[static_cast<std::size_t>(id)];
        ++got;
    }
    rest.join();
    BOOST_TEST(got == calls);
    BOOST_TEST(std::count(seen.begin(), seen.end(), 1) == calls);
}

BOOST_AUTO_TEST_CASE(stdin_closed_with_a_request_in_flight) {
    Env e;
    Fake fake(e.vault);
    auto shim = e.shim();
    // Everything at once, then EOF: a one-shot pipe still gets its answers.
    shim->send(kInit);
    shim->send(kInitialized);
    shim->send(call(2, "sse", "last"));
    shim->close_stdin();
    auto r = shim->response(2, 10s);
    BOOST_REQUIRE(r);
    BOOST_TEST(text_of(*r) == "last");
    BOOST_TEST(shim->wait(5s) == 0);
    BOOST_TEST(e.log().find("DELETE S") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(usage) {
    auto r = run({shim_bin().string(), "--bogus"});
    BOOST_TEST(r.exit_code == 2);
    BOOST_TEST(r.out.empty()); // stdout is the protocol's
    auto h = run({shim_bin().string(), "--help"});
    BOOST_TEST(h.exit_code == 0);
    BOOST_TEST(h.err.find("--agent") != std::string::npos);
    BOOST_TEST(h.out.empty());
}

// An id no request can have (object, array, boolean, fraction) or a request id null: over HTTP the
// message used to pass for a notification and nothing came back. The shim answers as the daemon
// does on its socket: -32600 with id null, on stdout; the session goes on.
BOOST_AUTO_TEST_CASE(unusable_ids_are_answered_invalid_request) {
    Env e;
    Fake fake(e.vault);
    auto shim = e.shim();
    handshake(*shim);
    for (std::string id : {"{}", "{\"n\":1}", "[1]", "true", "1.5", "null"}) {
        shim->send(R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"tools/list","params":{}})");
        auto l = shim->line(3000ms);
        BOOST_REQUIRE_MESSAGE(l, "no answer on stdout for id " << id);
        auto v = parse(*l);
        BOOST_TEST(v.at("error").at("code").as_int64() == -32600, id << ": " << *l);
        BOOST_TEST(v.at("id").is_null(), id << ": " << *l);
    }
    shim->send(call(2, "echo", "still here"));
    auto r = shim->response(2);
    BOOST_REQUIRE(r);
    BOOST_TEST(text_of(*r) == "still here");
}
