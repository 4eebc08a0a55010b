// The HTTP server against connections that hold resources without finishing requests (issue 18,
// item 2): the header deadline (idle and half-sent heads), the keep-alive idle deadline, streams
// that legitimately outlive both, the connection cap that closes the connection idle the longest,
// the accept back-off at the file-descriptor limit (no busy loop) and the soft limit raised at
// start-up. Deadlines are shortened through the daemon's COFFER_HTTP_* variables.
#define BOOST_TEST_MODULE http_deadlines
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"
#include "eventually.hpp"
#include "raw_conn.hpp"

#include <sys/resource.h>

#include <fstream>
#include <future>
#include <sstream>
#include <thread>

using namespace coffer::test;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace {

std::string get(const Daemon& d, const std::string& target, const std::string& extra = "") {
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(d.port()) +
           "\r\nX-Coffer-Token: " + d.token() + "\r\n" + extra + "\r\n";
}

// An open legacy SSE stream (GET /sse): a request in flight for as long as the client stays.
RawConn open_stream(const Daemon& d) {
    RawConn c(d.port());
    c.send(get(d, "/sse", "Accept: text/event-stream\r\n"));
    return c;
}

bool stream_started(RawConn& c, milliseconds limit) {
    auto head = c.read_response(limit);  // chunked: reads at least the head and the first chunk
    return first_status(head) == 200;
}

// The soft RLIMIT_NOFILE of a running process, from /proc/<pid>/limits.
long soft_fd_limit(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("Max open files", 0) == 0) {
            std::istringstream fields(line.substr(14));
            std::string soft;
            fields >> soft;
            return soft == "unlimited" ? -1 : std::stol(soft);
        }
    return 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_idle_connection_is_closed_at_the_header_deadline) {
    TempDir dir;
    Daemon d(dir.path() / "vault", {{"COFFER_HTTP_HEADER_TIMEOUT_MS", "1000"}});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    RawConn c(d.port());
    BOOST_REQUIRE(c.ok());
    auto closed = c.wait_closed(6s);
    BOOST_REQUIRE_MESSAGE(closed, "a connection that never sent a byte was still open after 6 s");
    BOOST_TEST(closed->count() >= 700);
    BOOST_TEST(closed->count() < 4000);
    BOOST_TEST(d.call("GET", "/api/v1/daemon/status").status == 200);
}

BOOST_AUTO_TEST_CASE(half_sent_headers_are_closed_at_the_header_deadline) {
    TempDir dir;
    Daemon d(dir.path() / "vault", {{"COFFER_HTTP_HEADER_TIMEOUT_MS", "1000"}});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    RawConn c(d.port());
    BOOST_REQUIRE(c.send("GET /api/v1/daemon/status HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    // A slow client trickling one header line every 200 ms never completes the head: the
    // deadline is for the whole head, not per byte.
    auto start = std::chrono::steady_clock::now();
    bool closed = false;
    for (int i = 0; i < 30 && !closed; ++i) {
        if (!c.send("X-Slow-" + std::to_string(i) + ": 1\r\n")) closed = true;
        else closed = c.wait_closed(200ms).has_value();
    }
    auto took = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
    BOOST_REQUIRE_MESSAGE(closed, "a head trickled for 6 s was never cut off");
    BOOST_TEST(took.count() < 4000);
}

BOOST_AUTO_TEST_CASE(an_idle_keep_alive_connection_is_closed_at_the_idle_deadline) {
    TempDir dir;
    Daemon d(dir.path() / "vault",
             {{"COFFER_HTTP_HEADER_TIMEOUT_MS", "10000"}, {"COFFER_HTTP_IDLE_TIMEOUT_MS", "1500"}});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    RawConn c(d.port());
    BOOST_REQUIRE(c.send(get(d, "/api/v1/daemon/status")));
    BOOST_TEST(first_status(c.read_response(5s)) == 200);
    // Within the idle deadline the connection is reused…
    std::this_thread::sleep_for(500ms);
    BOOST_REQUIRE(c.send(get(d, "/api/v1/daemon/status")));
    BOOST_TEST(first_status(c.read_response(5s)) == 200);
    // …and after it, closed (well before the 10 s header deadline).
    auto closed = c.wait_closed(8s);
    BOOST_REQUIRE_MESSAGE(closed, "an idle keep-alive connection was still open after 8 s");
    BOOST_TEST(closed->count() >= 1000);
    BOOST_TEST(closed->count() < 5000);
}

BOOST_AUTO_TEST_CASE(a_stream_outlives_the_deadlines) {
    TempDir dir;
    Daemon d(dir.path() / "vault",
             {{"COFFER_HTTP_HEADER_TIMEOUT_MS", "500"}, {"COFFER_HTTP_IDLE_TIMEOUT_MS", "500"}});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto stream = open_stream(d);
    BOOST_REQUIRE(stream_started(stream, 5s));
    BOOST_TEST(!stream.wait_closed(2500ms).has_value(), "the SSE stream was closed by a request deadline");
}

BOOST_AUTO_TEST_CASE(at_the_connection_cap_the_connection_idle_the_longest_is_closed) {
    TempDir dir;
    Daemon d(dir.path() / "vault",
             {{"COFFER_HTTP_MAX_CONNECTIONS", "16"}, {"COFFER_HTTP_HEADER_TIMEOUT_MS", "60000"}});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto stream = open_stream(d);  // busy: never the one closed to make room
    BOOST_REQUIRE(stream_started(stream, 5s));

    // An unauthenticated flood: connections that send nothing, or half a head.
    std::vector<RawConn> flood;
    for (int i = 0; i < 48; ++i) {
        flood.emplace_back(d.port());
        BOOST_REQUIRE(flood.back().ok());
        if (i % 2) flood.back().send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    }
    // The token holder still gets in (the server makes room for it)…
    auto r = d.call("GET", "/api/v1/daemon/status");
    BOOST_TEST(r.status == 200);
    // …by closing the oldest flood connections; the stream and the newest flood stay.
    std::this_thread::sleep_for(300ms);
    int closed = 0;
    for (auto& c : flood) closed += c.closed_now() ? 1 : 0;
    BOOST_TEST(closed >= 48 - 15);
    BOOST_TEST(closed <= 48 - 12);
    BOOST_TEST(flood.front().closed_now());
    BOOST_TEST(!flood.back().closed_now());
    BOOST_TEST(!stream.closed_now());
}

BOOST_AUTO_TEST_CASE(the_soft_fd_limit_is_raised_at_start_up) {
    rlimit mine{};
    BOOST_REQUIRE(::getrlimit(RLIMIT_NOFILE, &mine) == 0);
    if (mine.rlim_max != RLIM_INFINITY && mine.rlim_max <= 256) {
        BOOST_TEST_MESSAGE("hard RLIMIT_NOFILE is " << mine.rlim_max << ": nothing to raise");
        return;
    }
    // The daemon inherits a low soft limit and raises it to the hard one (at most 65536).
    rlimit low = mine;
    low.rlim_cur = 256;
    BOOST_REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
    TempDir dir;
    Daemon d(dir.path() / "vault");
    bool started = d.start();
    ::setrlimit(RLIMIT_NOFILE, &mine);
    BOOST_REQUIRE_MESSAGE(started, d.log());
    long want = mine.rlim_max == RLIM_INFINITY ? 65536 : static_cast<long>(std::min<rlim_t>(mine.rlim_max, 65536));
    BOOST_TEST(soft_fd_limit(d.pid()) == want);
}

// In a UBSan build the vptr check confirms an object is readable by writing it to a pipe(2); with
// every descriptor taken no pipe can be made, and a sound object is reported as having an
// "invalid vptr" (GCC 12 libsanitizer, IsAccessibleMemoryRange). That one check is suppressed for
// this daemon, and only while it is out of descriptors on purpose; it changes nothing unsanitized.
std::map<std::string, std::string> without_vptr_probe(const TempDir& dir) {
    auto file = dir.path() / "ubsan.supp";
    std::ofstream(file) << "vptr:*\n";
    const char* inherited = std::getenv("UBSAN_OPTIONS");
    std::string options = inherited && *inherited ? std::string(inherited) + ":" : std::string();
    return {{"UBSAN_OPTIONS", options + "suppressions=" + file.string()}};
}

BOOST_AUTO_TEST_CASE(out_of_descriptors_the_accept_loop_backs_off_and_recovers) {
    TempDir dir;
    auto env = without_vptr_probe(dir);
    env["COFFER_HTTP_HEADER_TIMEOUT_MS"] = "60000";
    Daemon d(dir.path() / "vault", env);
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    pid_t pid = d.pid();
    // Leave the daemon 8 descriptors: its soft limit, lowered from outside while it runs.
    rlimit now{};
    BOOST_REQUIRE(::prlimit(pid, RLIMIT_NOFILE, nullptr, &now) == 0);
    rlimit low = now;
    const int baseline = open_fds(pid);
    const int limit = baseline + 8;
    low.rlim_cur = static_cast<rlim_t>(limit);
    BOOST_REQUIRE(::prlimit(pid, RLIMIT_NOFILE, &low, nullptr) == 0);

    // A: idle connections beyond the limit. Accepting fails with EMFILE; the daemon closes the
    // connection idle the longest instead of retrying accept() in a tight loop.
    {
        std::vector<RawConn> flood;
        for (int i = 0; i < 64; ++i) {
            flood.emplace_back(d.port());
            BOOST_REQUIRE(flood.back().ok());
        }
        std::this_thread::sleep_for(300ms);
        auto before = cpu_time(pid);
        std::this_thread::sleep_for(1s);
        auto spent = cpu_time(pid) - before;
        BOOST_TEST(spent.count() < 150, "daemon used " << spent.count() << " ms of CPU in 1 s with fds exhausted");
        auto r = d.call("GET", "/api/v1/daemon/status");
        BOOST_TEST(r.status == 200, d.log());
    }

    // The flood's connections are all closed by now; wait until the daemon has let them go. Its
    // connections are counted on its port, not by descriptors: a daemon still starting up (plugins,
    // the index) may open files after `baseline` was taken.
    BOOST_REQUIRE_MESSAGE(eventually([&] { return held_connections(pid, d.port()) == 0; }, 10s),
                          "the daemon still holds " << held_connections(pid, d.port())
                                                    << " flood connections; its descriptors:\n" << describe_fds(pid));

    // B: every descriptor held by a stream (in flight, never closed to make room): the daemon
    // waits on a timer, without spinning, and serves the waiting client once streams end. A
    // stream that does not start is kept (closing it could free a descriptor); it counts as the
    // end of the descriptors only when the daemon holds all it may — on a loaded machine a stream
    // can just be slow to start.
    std::vector<RawConn> streams;
    bool exhausted = false;
    for (int i = 0; i < 24 && !exhausted; ++i) {
        streams.push_back(open_stream(d));
        exhausted = !stream_started(streams.back(), 1500ms) && open_fds(pid) >= limit;
    }
    BOOST_REQUIRE_MESSAGE(exhausted, "the descriptors never ran out");
    BOOST_REQUIRE(streams.size() > 1);
    auto waiting = std::async(std::launch::async, [&d] { return d.call("GET", "/api/v1/daemon/status").status; });
    std::this_thread::sleep_for(300ms);
    auto before = cpu_time(pid);
    std::this_thread::sleep_for(1s);
    auto spent = cpu_time(pid) - before;
    BOOST_TEST(spent.count() < 150, "daemon used " << spent.count() << " ms of CPU in 1 s with fds exhausted");
    BOOST_TEST((waiting.wait_for(0s) == std::future_status::timeout), "a client got in while no descriptor was free");
    streams.clear();
    BOOST_REQUIRE((waiting.wait_for(10s) == std::future_status::ready));
    BOOST_TEST(waiting.get() == 200, d.log());
    BOOST_TEST(d.call("GET", "/api/v1/daemon/status").status == 200);
}

BOOST_AUTO_TEST_CASE(limits_out_of_range_are_refused_at_start_up) {
    TempDir dir;
    auto daemon = (bin_dir() / "coffer-daemon").string();
    std::map<std::string, std::string> env{{"COFFER_HOME", (dir.path() / "vault").string()}, {"COFFER_PORT", "0"}};
    auto flag = run({daemon, "--http-max-connections", "0"}, env, 10s);
    BOOST_TEST(flag.exit_code == 64);
    BOOST_TEST(flag.err.find("HTTP connection cap") != std::string::npos, flag.err);
    env["COFFER_HTTP_HEADER_TIMEOUT_MS"] = "5";
    auto var = run({daemon}, env, 10s);
    BOOST_TEST(var.exit_code == 64);
    BOOST_TEST(var.err.find("HTTP header timeout") != std::string::npos, var.err);
}
