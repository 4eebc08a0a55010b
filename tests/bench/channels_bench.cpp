// Channels (issue 14): through the out-of-tree channel_echo adapter in the real daemon —
//   1. inbound message → turn started (the message written to the adapter's socket until the core,
//      on the orchestrator's turn.started, tells the adapter to show typing) and → the agent's
//      main() begins (until coffer-fake-agent starts), p50/p90 over sequential messages from the owner;
//   2. 1,000 inbound messages as fast as one client writes them through the owner gate (from
//      strangers, so each is judged and dropped): messages per second until the last ACK, and
//      whether every one was acknowledged and counted.
// Prints numbers; not a pass/fail test (the --quick run in ctest only keeps it working).
#include "agent_runs.hpp"
#include "daemon_fixture.hpp"
#include "line_client.hpp"
#include "stats.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;


int main(int argc, char** argv) {
    bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    int turns = quick ? 5 : 50, flood = quick ? 200 : 1000;
    StartedDaemon s({"channel_echo"});
    auto& d = s.d;
    auto log = s.dir.path() / "runs.jsonl";
    fs::create_directories(s.dir.path() / "work");
    json::object agent{{"command", COFFER_FAKE_AGENT}, {"env", json::object{{"FAKE_AGENT_LOG", log.string()}}}};
    d.call_json("POST", "/api/v1/agents", json::serialize(json::object{{"name", "fake"}, {"driver", "claude_code"}, {"config", agent}}));
    d.call_json("POST", "/api/v1/channels",
                json::serialize(json::object{{"name", "echo"}, {"adapter", "channel_echo"},
                                             {"config", json::object{{"agent", "fake"}, {"cwd", (s.dir.path() / "work").string()}}}}));
    auto port = d.call_json("GET", "/api/v1/channels/echo").at("channel").at("status").at("plugin").at("port").as_int64();
    LineClient c(static_cast<std::uint16_t>(port));
    auto code = std::string(d.call_json("POST", "/api/v1/channels/echo/pair").at("code").as_string());
    c.msg("p", "42", "1001", code);
    c.until("SEND", "Paired");

    std::vector<double> ms, started;
    for (int i = 0; i < turns; ++i) {
        auto t0 = now_us();
        c.msg("m" + std::to_string(i), "42", "1001", "turn " + std::to_string(i) + " sleep=0");
        c.until("TYPING");  // the core's first act once the orchestrator started the turn
        started.push_back(static_cast<double>(now_us() - t0) / 1000.0);
        c.until("SEND", "echo: turn " + std::to_string(i) + " ");
        ms.push_back(static_cast<double>(last_start_us(log) - t0) / 1000.0);
    }
    std::printf("channel inbound -> turn started (the adapter is told to show typing): p50 %.2f ms, p90 %.2f ms (n=%d)\n",
                percentile(started, 0.5), percentile(started, 0.9), turns);
    std::printf("channel inbound -> agent main() begins: p50 %.2f ms, p90 %.2f ms (n=%d)\n", percentile(ms, 0.5),
                percentile(ms, 0.9), turns);

    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < flood; ++i) c.msg("f" + std::to_string(i), "777", "666", "hello " + std::to_string(i));
    int acked = 0;
    while (acked < flood) {
        auto l = c.next(std::chrono::seconds(10));
        if (!l) break;
        if (l->verb == "ACK" && l->chat.rfind("f", 0) == 0) ++acked;
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto dropped = d.call_json("GET", "/api/v1/channels/echo").at("channel").at("counters").at("dropped").as_int64();
    std::printf("gate: %d inbound messages in %.3f s = %.0f msg/s; acknowledged %d, counted as dropped %lld (lost %d)\n", flood,
                secs, flood / secs, acked, static_cast<long long>(dropped), flood - acked);
    return acked == flood && dropped == flood ? 0 : 1;
}
