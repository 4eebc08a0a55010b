// Chat benchmark (agents and conversations): prints figures, asserts nothing about time.
//
//   1. Event fan-out to 100 subscribers (target: adds ≤ 1 ms p99 per event)
//      a. in-process: events::Bus with 100 subscriptions drained on one Asio thread (as the
//         daemon drains SSE subscribers on its network thread): publish → the last subscriber
//         has it;
//      b. the real daemon: 100 SSE clients on one conversation while a turn streams 200 deltas;
//         per event, the spread between the first and the last client to receive it.
//   2. 1,000 queued messages (1 KiB each) across 50 conversations, each with a running turn: the
//      daemon's resident memory before and after (target ≤ 20 MB).
//   3. POST /messages → the agent process started (its first instruction), p50 (target ≤ 10 ms).
//
//   coffer-bench-chat            full
//   coffer-bench-chat --quick    smaller (what ctest runs, to keep it working)
#include "daemon_fixture.hpp"
#include "stats.hpp"

#include "events/bus.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
using clk = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

double us_between(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }

void report(const char* what, std::vector<double> v, const char* unit) {
    std::printf("  %-58s p50 %8.1f  p90 %8.1f  p99 %8.1f  max %8.1f %s  (n=%zu)\n", what, percentile(v, 0.5),
                percentile(v, 0.9), percentile(v, 0.99), v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()), unit,
                v.size());
}

// 1a --------------------------------------------------------------------------------------------
void bus_fanout(int subscribers, int events) {
    coffer::events::Bus bus(4096);
    boost::asio::io_context io;
    auto guard = boost::asio::make_work_guard(io);
    std::vector<std::shared_ptr<coffer::events::Subscription>> subs;
    std::vector<clk::time_point> last_seen(static_cast<std::size_t>(events) + 1);
    std::vector<int> seen_count(static_cast<std::size_t>(events) + 1, 0);
    for (int i = 0; i < subscribers; ++i) {
        auto slot = std::make_shared<std::shared_ptr<coffer::events::Subscription>>();
        *slot = bus.subscribe("conversation/x", [&io, slot, &last_seen, &seen_count] {
            boost::asio::post(io, [slot, &last_seen, &seen_count] {
                auto b = (*slot)->take();
                std::string frame;  // what the SSE stream would format
                for (auto& e : b.events) {
                    frame = "id: " + std::to_string(e.id) + "\nevent: " + e.message->type + "\ndata: " + e.message->json + "\n\n";
                    last_seen[e.id] = clk::now();
                    ++seen_count[e.id];
                }
            });
        });
        subs.push_back(*slot);
    }
    std::thread net([&] { io.run(); });
    std::vector<double> publish_us, delivered_us;
    std::vector<clk::time_point> sent(static_cast<std::size_t>(events) + 1);
    for (int i = 1; i <= events; ++i) {
        auto m = std::make_shared<coffer::events::Message>();
        m->type = "text.delta";
        m->json = R"({"type":"text.delta","item_id":"msg_1:0","text":"some streamed words ","turn_id":"t_1","seq":)" +
                  std::to_string(i) + R"(,"conversation_id":"c_1","ts":1796187877799})";
        sent[static_cast<std::size_t>(i)] = clk::now();
        bus.publish("conversation/x", std::move(m), static_cast<std::uint64_t>(i));
        publish_us.push_back(us_between(sent[static_cast<std::size_t>(i)], clk::now()));
        std::this_thread::sleep_for(500us);  // deltas arrive spaced, as from an agent
    }
    std::this_thread::sleep_for(200ms);
    guard.reset();
    io.stop();
    net.join();
    for (int i = 1; i <= events; ++i)
        if (seen_count[static_cast<std::size_t>(i)] == subscribers)
            delivered_us.push_back(us_between(sent[static_cast<std::size_t>(i)], last_seen[static_cast<std::size_t>(i)]));
    std::printf("1a. events::Bus, %d subscribers drained on one thread, %d events\n", subscribers, events);
    report("publish() call (the publisher's cost)", publish_us, "us");
    report("publish → the last subscriber formatted it", delivered_us, "us");
}

// 1b --------------------------------------------------------------------------------------------
struct Client {
    int fd = -1;
    std::string buf;
    long long replayed_up_to = -1;  // the state frame's id: events up to it are the replay
};

int open_stream(std::uint16_t port, const std::string& token, const std::string& conv) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return -1;
    std::string req = "GET /api/v1/conversations/" + conv + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Coffer-Token: " + token + "\r\n\r\n";
    (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    return fd;
}

long long now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Streams one turn of `deltas` stamped deltas to `subscribers` clients (one reader thread, poll);
// returns, per delta, the latency from the agent printing it to the last client receiving it.
std::vector<double> stream_latency(StartedDaemon& s, const std::string& conv, int subscribers, int deltas) {
    std::vector<Client> clients(static_cast<std::size_t>(subscribers));
    for (auto& c : clients) c.fd = open_stream(s.d.port(), s.d.token(), conv);
    std::this_thread::sleep_for(300ms);
    std::map<long long, std::pair<long long, int>> seen;  // printed µs → (last arrival µs, clients)
    s.d.call("POST", "/api/v1/conversations/" + conv + "/messages",
             R"({"text":"stamp chunks=)" + std::to_string(deltas) + R"( sleep=5 )" + std::string(static_cast<std::size_t>(deltas) * 8, 'w') + R"("})");
    std::vector<pollfd> pfds;
    for (auto& c : clients) pfds.push_back(pollfd{c.fd, POLLIN, 0});
    int completed = 0;
    auto deadline = clk::now() + 60s;
    char tmp[65536];
    while (completed < subscribers && clk::now() < deadline) {
        if (::poll(pfds.data(), pfds.size(), 200) <= 0) continue;
        for (std::size_t i = 0; i < pfds.size(); ++i) {
            if (!(pfds[i].revents & POLLIN)) continue;
            auto n = ::recv(pfds[i].fd, tmp, sizeof tmp, 0);
            if (n <= 0) continue;
            auto arrived = now_us();
            auto& b = clients[i].buf;
            b.append(tmp, static_cast<std::size_t>(n));
            for (;;) {  // complete events: "\n\n"-terminated
                auto end = b.find("\n\n");
                if (end == std::string::npos) break;
                std::string ev = b.substr(0, end);
                b.erase(0, end + 2);
                long long id = ev.rfind("id: ", 0) == 0 ? std::atoll(ev.c_str() + 4) : -1;
                if (auto at = ev.find("\nid: "); id < 0 && at != std::string::npos) id = std::atoll(ev.c_str() + at + 5);
                if (ev.find("event: state") != std::string::npos) {
                    clients[i].replayed_up_to = id;
                    continue;
                }
                if (id <= clients[i].replayed_up_to) continue;  // the previous turn, replayed
                if (ev.find("event: turn.completed") != std::string::npos) ++completed;
                if (ev.find("event: text.delta") == std::string::npos) continue;
                auto t = ev.find(R"("text":")");
                if (t == std::string::npos) continue;
                auto printed = std::atoll(ev.c_str() + t + 8);
                auto& slot = seen[printed];
                slot.first = std::max(slot.first, arrived);
                ++slot.second;
            }
        }
    }
    std::vector<double> out;
    for (auto& [printed, v] : seen)
        if (v.second == subscribers) out.push_back(static_cast<double>(v.first - printed) / 1000.0);
    for (auto& c : clients) ::close(c.fd);
    return out;
}

void daemon_fanout(StartedDaemon& s, const std::string& conv, int subscribers, int deltas) {
    std::printf("1b. the daemon: a turn of %d deltas, agent's print → the last SSE client has it\n", deltas);
    auto one = stream_latency(s, conv, 1, deltas);
    report("1 subscriber", one, "ms");
    auto many = stream_latency(s, conv, subscribers, deltas);
    report((std::to_string(subscribers) + " subscribers (the last of them)").c_str(), many, "ms");
    std::printf("  %-58s p50 %8.2f  p99 %8.2f ms\n", "what the fan-out adds", percentile(many, 0.5) - percentile(one, 0.5),
                percentile(many, 0.99) - percentile(one, 0.99));
}

// 2 ---------------------------------------------------------------------------------------------
long rss_kb(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

void queue_memory(StartedDaemon& s, const std::string& workdir, int conversations, int per_conversation) {
    std::vector<std::string> ids;
    for (int i = 0; i < conversations; ++i) {
        auto v = s.d.call_json("POST", "/api/v1/conversations", R"({"agent":"cc","cwd":")" + workdir + R"("})");
        ids.emplace_back(v.at("conversation").at("id").as_string());
        s.d.call("POST", "/api/v1/conversations/" + ids.back() + "/messages", R"({"text":"busy hang=120000 sleep=0"})");
    }
    std::this_thread::sleep_for(500ms);
    long before = rss_kb(s.d.pid());
    std::string text(1024, 'q');
    for (int k = 0; k < per_conversation; ++k)
        for (auto& id : ids) s.d.call("POST", "/api/v1/conversations/" + id + "/messages", R"({"text":")" + text + R"("})");
    std::this_thread::sleep_for(300ms);
    long after = rss_kb(s.d.pid());
    long pending = 0;
    for (auto& id : ids) pending += static_cast<long>(s.d.call_json("GET", "/api/v1/conversations/" + id + "/queue").at("pending").as_array().size());
    std::printf("2.  %ld queued messages of 1 KiB across %d conversations (each with a running turn)\n", pending, conversations);
    std::printf("  daemon RSS %ld KiB → %ld KiB: +%.2f MB for the queues (target ≤ 20 MB)\n", before, after,
                static_cast<double>(after - before) / 1024.0);
    for (auto& id : ids) {
        s.d.call("POST", "/api/v1/conversations/" + id + "/queue/clear");
        s.d.call("POST", "/api/v1/conversations/" + id + "/interrupt");
    }
    eventually([&] {
        for (auto& id : ids)
            if (s.d.call_json("GET", "/api/v1/conversations/" + id + "?messages=0").at("conversation").at("state").at("running").as_bool())
                return false;
        return true;
    }, 30s);
}

// 3 ---------------------------------------------------------------------------------------------
void post_to_start(StartedDaemon& s, const std::string& conv, const std::string& log, int turns) {
    std::vector<double> ms;
    for (int i = 0; i < turns; ++i) {
        auto lines_before = [&] {
            std::ifstream in(log);
            return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
        };
        auto n0 = lines_before();
        auto t0 = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        s.d.call("POST", "/api/v1/conversations/" + conv + "/messages", R"({"text":"quick sleep=0 chunks=1"})");
        eventually([&] { return lines_before() > n0; }, 10s, 1ms);
        std::ifstream in(log);
        std::string line, last;
        while (std::getline(in, line))
            if (!line.empty()) last = line;
        auto started = json::parse(last).at("started_us").as_int64();
        ms.push_back(static_cast<double>(started - t0) / 1000.0);
        eventually([&] {
            return !s.d.call_json("GET", "/api/v1/conversations/" + conv + "?messages=0").at("conversation").at("state").at("running").as_bool();
        }, 10s, 2ms);
    }
    std::printf("3.  POST /messages → the agent's main() began, %d turns one after another\n", turns);
    report("POST → driver process start", ms, "ms");
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    std::printf("coffer-bench-chat%s\n", quick ? " --quick" : "");
    bus_fanout(100, quick ? 200 : 2000);

    StartedDaemon s({}, {{"COFFER_CHAT_HEARTBEAT_MS", "15000"}});
    auto work = (s.dir.path() / "work").string();
    auto log = (s.dir.path() / "runs.jsonl").string();
    std::filesystem::create_directories(work);
    s.d.call("POST", "/api/v1/agents",
             json::serialize(json::object{{"name", "cc"}, {"driver", "claude_code"},
                                          {"config", json::object{{"command", COFFER_FAKE_AGENT},
                                                                  {"interrupt_grace_ms", 200},
                                                                  {"env", json::object{{"FAKE_AGENT_LOG", log}}}}}}));
    auto conv = std::string(s.d.call_json("POST", "/api/v1/conversations", R"({"agent":"cc","cwd":")" + work + R"("})")
                                .at("conversation").at("id").as_string());
    daemon_fanout(s, conv, 100, quick ? 50 : 200);
    post_to_start(s, conv, log, quick ? 10 : 50);
    queue_memory(s, work, quick ? 10 : 50, 20);
    return 0;
}
