// Channels through the bundled telegram adapter and the Bot API stand-in (real HTTP, long
// polling) in the real daemon:
//   1. a user's message appears at the stand-in → the agent's main() begins (coffer-fake-agent),
//      p50/p90 over sequential messages from the owner; → the turn started (the core's first
//      sendChatAction typing reaches the stand-in); and → the update is confirmed (the host has
//      it durably and the next getUpdates carried the offset);
//   2. 1,000 updates from strangers queued at once: updates per second until every one was
//      confirmed, and whether the gate counted each one.
// Prints numbers; not a pass/fail test (the --quick run in ctest only keeps it working).
#include "agent_runs.hpp"
#include "daemon_fixture.hpp"
#include "standin.hpp"
#include "stats.hpp"

#include <cstdio>
#include <cstring>

using namespace coffer::test;
namespace json = boost::json;

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    int turns = quick ? 5 : 50, flood = quick ? 200 : 1000;
    const std::string token = "1000:bench-token", owner = "5000000001";
    coffer::telegram_standin::Standin bot(token);
    StartedDaemon s;
    auto& d = s.d;
    auto log = s.dir.path() / "runs.jsonl";
    std::filesystem::create_directories(s.dir.path() / "work");
    d.call_json("POST", "/api/v1/credentials", json::serialize(json::object{{"ref", "tg"}, {"value", token}}));
    json::object agent{{"command", COFFER_FAKE_AGENT}, {"env", json::object{{"FAKE_AGENT_LOG", log.string()}}}};
    d.call_json("POST", "/api/v1/agents", json::serialize(json::object{{"name", "fake"}, {"driver", "claude_code"}, {"config", agent}}));
    json::object config{{"agent", "fake"}, {"cwd", (s.dir.path() / "work").string()}, {"token", "credref:tg"}, {"api_base", bot.base_url()}};
    d.call_json("POST", "/api/v1/channels", json::serialize(json::object{{"name", "tg"}, {"adapter", "telegram"}, {"config", config}}));
    auto answered = [&](const std::string& needle) {
        return bot.wait_until([&] {
            for (auto& m : bot.messages(owner))
                if (m.visible.find(needle) != std::string::npos) return true;
            return false;
        }, std::chrono::seconds(30));
    };
    auto code = std::string(d.call_json("POST", "/api/v1/channels/tg/pair").at("code").as_string());
    bot.inject_text(owner, code);
    if (!answered("Paired")) {
        std::fprintf(stderr, "pairing through the stand-in failed\n");
        return 1;
    }
    std::vector<double> start_ms, confirm_ms, typing_ms;
    for (int i = 0; i < turns; ++i) {
        auto typed = bot.calls("sendChatAction").size();
        auto t0 = now_us();
        auto s0 = std::chrono::steady_clock::now();
        auto id = bot.inject_text(owner, "turn " + std::to_string(i) + " sleep=0");
        bot.wait_until([&] { return bot.confirmed_offset() > id; });
        confirm_ms.push_back(static_cast<double>(now_us() - t0) / 1000.0);
        answered("echo: turn " + std::to_string(i) + " ");
        start_ms.push_back(static_cast<double>(last_start_us(log) - t0) / 1000.0);
        auto typing = bot.calls("sendChatAction");
        if (typing.size() > typed)
            typing_ms.push_back(std::chrono::duration<double, std::milli>(typing[typed].at - s0).count());
    }
    std::printf("telegram inbound -> agent main() begins: p50 %.2f ms, p90 %.2f ms (n=%d)\n", percentile(start_ms, 0.5),
                percentile(start_ms, 0.9), turns);
    std::printf("telegram inbound -> turn started, typing shown at the stand-in: p50 %.2f ms, p90 %.2f ms\n",
                percentile(typing_ms, 0.5), percentile(typing_ms, 0.9));
    std::printf("telegram inbound -> update confirmed (durable, offset committed): p50 %.2f ms, p90 %.2f ms\n",
                percentile(confirm_ms, 0.5), percentile(confirm_ms, 0.9));
    auto dropped_before = d.call_json("GET", "/api/v1/channels/tg").at("channel").at("counters").at("dropped").as_int64();
    auto t0 = std::chrono::steady_clock::now();
    std::int64_t last = 0;
    for (int i = 0; i < flood; ++i) last = bot.inject_text(std::to_string(700000 + i), "hello " + std::to_string(i));
    bool all = bot.wait_until([&] { return bot.confirmed_offset() > last; }, std::chrono::seconds(60));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto dropped = d.call_json("GET", "/api/v1/channels/tg").at("channel").at("counters").at("dropped").as_int64() - dropped_before;
    std::printf("gate through getUpdates: %d updates in %.3f s = %.0f msg/s; all confirmed %s, counted as dropped %lld\n", flood,
                secs, flood / secs, all ? "yes" : "no", static_cast<long long>(dropped));
    return all && dropped == flood ? 0 : 1;
}
