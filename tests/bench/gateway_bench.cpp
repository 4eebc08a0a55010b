// MCP gateway benchmark (issue 3): what the gateway costs compared with talking to the upstream
// directly. One run, one upstream (coffer-test-upstream over stdio; with --upstream everything,
// @modelcontextprotocol/server-everything on Node from tests/e2e/node_modules), one client (a
// small blocking stdio MCP client below), two paths measured alternately so both see the same
// machine:
//
//   direct:  client ⇄ upstream
//   relay1:  client ⇄ coffer-bench-relay ⇄ upstream             (throughput only)
//   relay2:  client ⇄ coffer-bench-relay ⇄ coffer-bench-relay ⇄ upstream
//   gateway: client ⇄ coffer-mcp-shim ⇄ coffer-daemon (local socket, or /mcp with
//            COFFER_SHIM_TRANSPORT=http) ⇄ mcp_server plugin ⇄ upstream
//
// 1. tools/call latency, one call at a time: p50/p90/p99 of both paths and the overhead.
// 2. Throughput with 16 calls in flight (pipelined ids): calls/s of each path, gateway/direct.
//    The relays copy bytes and do nothing else; relay2 has as many processes as the gateway
//    path, so relay2/direct is the most any gateway made of a shim and a daemon could reach on
//    this machine, and gateway/relay2 is the share of that floor the gateway keeps.
// 3. Daemon memory per idle session: 100 Streamable HTTP sessions straight on /mcp, each with its
//    upstream started; daemon RSS/PSS/private before and after (upstreams are other processes).
// 4. 100 sessions calling at once: wall time, errors.
//
// Prints figures; asserts nothing about time. Exits non-zero only when something did not work
// (a call failed, a session was refused), so a broken gateway cannot pass as a fast one.
#include "daemon_fixture.hpp"
#include "http_stream.hpp"
#include "stats.hpp"

#include <boost/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace coffer::test;
namespace fs = std::filesystem;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

double median(std::vector<double> v) { return percentile(std::move(v), 0.5); }

// A child process of `parent` (the daemon's one upstream), or -1.
pid_t child_of(pid_t parent) {
    std::error_code ec;
    for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream st(it->path() / "stat");
        std::string line;
        std::getline(st, line);
        auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 2));
        std::string state;
        long ppid = 0;
        if (rest >> state >> ppid && ppid == parent) return static_cast<pid_t>(std::stol(name));
    }
    return -1;
}

// ---------------------------------------------------------------------------------------------
// A child speaking newline-delimited JSON-RPC on its stdin/stdout: the MCP client of this bench.
// Both paths go through exactly this code.

class StdioPeer {
public:
    StdioPeer(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, const fs::path& err) {
        auto c = spawn_piped(argv, env, err);
        if (c.pid < 0) throw std::runtime_error("cannot start " + argv.at(0));
        pid_ = c.pid;
        in_ = c.in;
        out_ = c.out;
    }
    ~StdioPeer() {
        if (in_ >= 0) ::close(in_);
        if (wait_pid(pid_, std::chrono::seconds(3)) == -2) {
            ::kill(pid_, SIGKILL);
            wait_pid(pid_, std::chrono::seconds(3));
        }
        if (out_ >= 0) ::close(out_);
    }
    StdioPeer(const StdioPeer&) = delete;
    StdioPeer& operator=(const StdioPeer&) = delete;

    void send(const std::string& line) {  // `line` ends with '\n'
        std::size_t off = 0;
        while (off < line.size()) {
            ssize_t n = ::write(in_, line.data() + off, line.size() - off);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) throw std::runtime_error("write to the peer failed");
            off += static_cast<std::size_t>(n);
        }
    }

    // The next line (without '\n'); throws after 10 s without one.
    std::string recv() {
        for (;;) {
            auto nl = buf_.find('\n', scan_);
            if (nl != std::string::npos) {
                std::string line = buf_.substr(0, nl);
                buf_.erase(0, nl + 1);
                scan_ = 0;
                return line;
            }
            scan_ = buf_.size();
            pollfd p{out_, POLLIN, 0};
            int r = ::poll(&p, 1, 10000);
            if (r == 0) throw std::runtime_error("no answer from the peer within 10 s");
            if (r < 0 && errno == EINTR) continue;
            char chunk[65536];
            ssize_t n = ::read(out_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) throw std::runtime_error("the peer closed its stdout");
            buf_.append(chunk, static_cast<std::size_t>(n));
        }
    }

    // The next line that is not a notification (server-everything sends some on its own, e.g.
    // tools/list_changed after start).
    std::string recv_response() {
        for (;;) {
            auto line = recv();
            if (line.find("\"method\"") == std::string::npos || line.find("\"id\"") != std::string::npos) return line;
        }
    }

    // A request/response for the handshake and checks (not timed).
    json::value request(const std::string& line) {
        send(line);
        for (;;) {
            auto v = parse(recv());
            if (v.is_object() && v.as_object().contains("id")) return v;  // skip notifications
        }
    }

    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    std::string buf_;
    std::size_t scan_ = 0;
};

// One measured path: a stdio peer after the MCP handshake, and the tool name to call on it.
struct Path {
    std::string label;
    std::unique_ptr<StdioPeer> peer;
    std::string tool;
    std::string argument = "text";             // the echo tool's argument
    std::string expect = "benchmark payload";  // and the text it answers with
    std::int64_t next_id = 100;

    std::string call_line(std::int64_t id) const {
        return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + tool +
               R"(","arguments":{")" + argument + R"(":"benchmark payload"}}})" + "\n";
    }
    // A response is good when it is the result of this echo call.
    bool good(const std::string& line, std::int64_t* id_out) const {
        auto v = parse(line);
        if (!v.is_object()) return false;
        auto& o = v.as_object();
        auto* id = o.if_contains("id");
        auto* r = o.if_contains("result");
        if (!id || !id->is_int64() || !r || !r->is_object()) return false;
        if (id_out) *id_out = id->as_int64();
        auto* content = r->as_object().if_contains("content");
        return content && content->is_array() && !content->as_array().empty() &&
               content->as_array()[0].as_object().at("text").as_string() == expect;
    }

    void handshake() {
        auto init = peer->request(
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"coffer-bench-gateway","version":"1"}}})"
            "\n");
        if (!init.as_object().contains("result"))
            throw std::runtime_error(label + ": initialize failed: " + json::serialize(init));
        peer->send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n");
    }

    // One call, timed from the write to the whole response line read.
    double call_once() {
        auto id = next_id++;
        auto line = call_line(id);
        auto t0 = Clock::now();
        peer->send(line);
        auto reply = peer->recv_response();
        double us = us_since(t0);
        std::int64_t got = -1;
        if (!good(reply, &got) || got != id) throw std::runtime_error(label + ": bad reply: " + reply.substr(0, 300));
        return us;
    }

    // `total` calls with `depth` in flight; returns calls per second.
    double pipelined(int total, int depth) {
        int sent = 0, done = 0;
        auto t0 = Clock::now();
        std::string batch;
        for (; sent < std::min(depth, total); ++sent) batch += call_line(next_id++);
        peer->send(batch);
        while (done < total) {
            auto reply = peer->recv_response();
            if (!good(reply, nullptr)) throw std::runtime_error(label + ": bad reply: " + reply.substr(0, 300));
            ++done;
            if (sent < total) {
                peer->send(call_line(next_id++));
                ++sent;
            }
        }
        return total / (us_since(t0) / 1e6);
    }
};

struct Stats {
    double p50, p90, p99, mean, max;
};

Stats stats(const std::vector<double>& v) {
    return {percentile(v, 0.5), percentile(v, 0.9), percentile(v, 0.99), std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()),
            *std::max_element(v.begin(), v.end())};
}

// ---------------------------------------------------------------------------------------------
// Daemon memory (kB) from /proc: VmRSS, and PSS / private from smaps_rollup.

struct Mem {
    long rss = -1, pss = -1, priv = -1;
};

Mem mem_of(pid_t pid) {
    Mem m;
    auto field = [](const std::string& line, const char* name) -> long {
        auto n = std::strlen(name);
        if (line.compare(0, n, name) != 0) return -1;
        return std::stol(line.substr(n));
    };
    {
        std::ifstream in("/proc/" + std::to_string(pid) + "/status");
        std::string line;
        while (std::getline(in, line))
            if (auto v = field(line, "VmRSS:"); v >= 0) m.rss = v;
    }
    std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
    std::string line;
    long pc = -1, pd = -1;
    while (std::getline(in, line)) {
        if (auto v = field(line, "Pss:"); v >= 0) m.pss = v;
        if (auto v = field(line, "Private_Clean:"); v >= 0) pc = v;
        if (auto v = field(line, "Private_Dirty:"); v >= 0) pd = v;
    }
    if (pc >= 0 && pd >= 0) m.priv = pc + pd;
    return m;
}

// CPU time (ns) and context switches (voluntary: it waited; involuntary: it was preempted) of
// every thread of a process, from /proc.
struct Cpu {
    double ns = 0, wait_ns = 0;  // on a CPU; runnable but waiting for one
    long vol = 0, invol = 0;
};

std::map<long, Cpu> threads_of(pid_t pid) {
    std::map<long, Cpu> out;
    std::error_code ec;
    auto dir = fs::path("/proc") / std::to_string(pid) / "task";
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        Cpu c;
        std::ifstream ss(it->path() / "schedstat");
        ss >> c.ns >> c.wait_ns;
        std::ifstream st(it->path() / "status");
        std::string line;
        while (std::getline(st, line)) {
            if (line.rfind("voluntary_ctxt_switches:", 0) == 0) c.vol = std::stol(line.substr(line.find(':') + 1));
            if (line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) c.invol = std::stol(line.substr(line.find(':') + 1));
        }
        out[std::stol(it->path().filename().string())] = c;
    }
    return out;
}

// CPU and context switches per call of a set of processes over a phase (COFFER_BENCH_THREADS=1:
// per thread). "waited" is the time a process was runnable but had no CPU.
class CpuMeter {
public:
    explicit CpuMeter(std::vector<std::pair<std::string, pid_t>> procs) : procs_(std::move(procs)) {}
    void start() {
        before_.clear();
        for (auto& [name, pid] : procs_) before_.push_back(threads_of(pid));
    }
    // Since start(): each process's sum, and a line per thread when asked for.
    std::string per_call(long calls) const {
        static const bool per_thread = std::getenv("COFFER_BENCH_THREADS") != nullptr;
        std::vector<std::string> detail;
        auto sums = since_start(per_thread ? &detail : nullptr, calls);
        return format(sums, calls, detail);
    }
    // CPU per call of each process since start(), us.
    std::vector<double> per_call_us(long calls) const {
        std::vector<double> out;
        for (auto& c : since_start(nullptr, calls)) out.push_back(c.ns / 1000.0 / static_cast<double>(calls));
        return out;
    }

    // Metering in stretches: resume() … pause() adds each stretch; accumulated() per call.
    void resume() { start(); }
    void pause() {
        auto sums = since_start(nullptr, 1);
        if (total_.size() != sums.size()) total_.assign(sums.size(), Cpu{});
        for (std::size_t i = 0; i < sums.size(); ++i) add(total_[i], sums[i]);
    }
    std::string accumulated(long calls) const { return format(total_, calls, {}); }

private:
    static void add(Cpu& to, const Cpu& d) {
        to.ns += d.ns, to.wait_ns += d.wait_ns, to.vol += d.vol, to.invol += d.invol;
    }
    static std::string describe(const Cpu& c, double n) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%.1f us (waited %.1f) %.2f+%.2f sw", c.ns / 1000.0 / n, c.wait_ns / 1000.0 / n,
                      static_cast<double>(c.vol) / n, static_cast<double>(c.invol) / n);
        return buf;
    }
    // Each process's change since start(); with `detail`, also a text per process of its threads.
    std::vector<Cpu> since_start(std::vector<std::string>* detail, long calls) const {
        std::vector<Cpu> out;
        for (std::size_t i = 0; i < procs_.size(); ++i) {
            Cpu sum;
            std::string text;
            for (auto& [tid, now] : threads_of(procs_[i].second)) {
                Cpu was;
                if (auto it = before_[i].find(tid); it != before_[i].end()) was = it->second;
                Cpu d{now.ns - was.ns, now.wait_ns - was.wait_ns, now.vol - was.vol, now.invol - was.invol};
                add(sum, d);
                if (detail && d.ns > 0) text += " [" + std::to_string(tid) + ": " + describe(d, static_cast<double>(calls)) + "]";
            }
            out.push_back(sum);
            if (detail) detail->push_back(text);
        }
        return out;
    }
    std::string format(const std::vector<Cpu>& sums, long calls, const std::vector<std::string>& detail) const {
        std::string out;
        for (std::size_t i = 0; i < procs_.size() && i < sums.size(); ++i) {
            out += (out.empty() ? "" : ", ") + procs_[i].first + " " + describe(sums[i], static_cast<double>(calls));
            if (i < detail.size()) out += detail[i];
        }
        return out;
    }

    std::vector<std::pair<std::string, pid_t>> procs_;
    std::vector<std::map<long, Cpu>> before_;
    std::vector<Cpu> total_;
};

// The whole machine's busy and idle time (/proc/stat, in clock ticks) and this thread's CPU: the
// client's share, and how much of the machine a path left idle.
struct MachineSample {
    double busy_s = 0, idle_s = 0, client_s = 0;
    static MachineSample now() {
        MachineSample m;
        std::ifstream in("/proc/stat");
        std::string cpu;
        double v[8] = {};
        in >> cpu;
        for (auto& x : v) in >> x;
        const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
        m.idle_s = (v[3] + v[4]) / hz;                                        // idle + iowait
        m.busy_s = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;            // user nice system irq softirq steal
        timespec ts{};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        m.client_s = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
        return m;
    }
};

struct MachineTotals {
    double busy_s = 0, idle_s = 0, client_s = 0;
    long calls = 0;
    void add(const MachineSample& a, const MachineSample& b, long n) {
        busy_s += b.busy_s - a.busy_s, idle_s += b.idle_s - a.idle_s, client_s += b.client_s - a.client_s;
        calls += n;
    }
};

std::size_t count_entries(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) return 0;
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
    return n;
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP sessions straight on /mcp (one request per connection, like a plain client).

struct HttpSession {
    std::string id;
};

std::map<std::string, std::string> mcp_headers(Daemon& d, const std::string& session) {
    std::map<std::string, std::string> h{{"X-Coffer-Token", d.token()}, {"Accept", "application/json, text/event-stream"}};
    if (!session.empty()) {
        h["Mcp-Session-Id"] = session;
        h["MCP-Protocol-Version"] = "2025-11-25";
    }
    return h;
}

// The JSON-RPC message of a /mcp answer (plain JSON, or the last event of an SSE body).
json::value mcp_message(const HttpResult& r) {
    auto ct = r.headers.count("content-type") ? r.headers.at("content-type") : "";
    if (ct.rfind("text/event-stream", 0) != 0) return parse(r.body);
    json::value last;
    std::size_t pos = 0;
    while ((pos = r.body.find("data: ", pos)) != std::string::npos) {
        auto end = r.body.find('\n', pos);
        last = parse(r.body.substr(pos + 6, end - pos - 6));
        pos = end;
    }
    return last;
}

bool http_call_ok(Daemon& d, const HttpSession& s, int id) {
    auto r = http_request(d.port(), "POST", "/mcp",
                          R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                              R"(,"method":"tools/call","params":{"name":"up__echo","arguments":{"text":"benchmark payload"}}})",
                          mcp_headers(d, s.id));
    if (r.status != 200) return false;
    auto v = mcp_message(r);
    return v.is_object() && v.as_object().contains("result") &&
           json::serialize(v.as_object().at("result")).find("benchmark payload") != std::string::npos;
}

bool open_http_session(Daemon& d, HttpSession& s) {
    auto r = http_request(
        d.port(), "POST", "/mcp",
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"coffer-bench-gateway-http","version":"1"}}})",
        mcp_headers(d, ""));
    if (r.status != 200 || !r.headers.count("mcp-session-id")) return false;
    s.id = r.headers.at("mcp-session-id");
    auto n = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                          mcp_headers(d, s.id));
    if (n.status != 202) return false;
    return http_call_ok(d, s, 2);  // starts this session's upstream
}

// A Streamable HTTP client straight on /mcp that keeps its connection, as SDK clients do (the
// path without a shim): one TCP connection (HttpStream, keep-alive), one request at a time, JSON
// or SSE answers.
class HttpPeer {
public:
    HttpPeer(std::uint16_t port, std::string token) : port_(port), token_(std::move(token)) {}

    void handshake() {
        auto init = post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"coffer-bench-gateway-keepalive","version":"1"}}})");
        if (!init.is_object() || !init.as_object().contains("result") || session_.empty())
            throw std::runtime_error("http: initialize failed: " + json::serialize(init));
        post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        if (status_ != 202) throw std::runtime_error("http: notifications/initialized answered " + std::to_string(status_));
    }
    // One echo call through the gateway, timed from the write to the whole answer read.
    double call_once(const std::string& tool, const std::string& argument, const std::string& expect) {
        auto id = next_id_++;
        auto body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" +
                    tool + R"(","arguments":{")" + argument + R"(":"benchmark payload"}}})";
        auto t0 = Clock::now();
        auto v = post(body);
        double us = us_since(t0);
        auto text = json::serialize(v);
        if (status_ != 200 || text.find(expect) == std::string::npos)
            throw std::runtime_error("http: bad reply: " + text.substr(0, 300));
        return us;
    }

private:
    // One POST on the kept connection; the JSON-RPC message of the answer (null for none).
    json::value post(const std::string& body) {
        std::map<std::string, std::string> h{{"X-Coffer-Token", token_}, {"Accept", "application/json, text/event-stream"}};
        if (!session_.empty()) {
            h["Mcp-Session-Id"] = session_;
            h["MCP-Protocol-Version"] = "2025-11-25";
        }
        if (!conn_) conn_ = std::make_unique<HttpStream>(port_, "POST", "/mcp", body, h);
        else if (!conn_->send("POST", "/mcp", body, h)) throw std::runtime_error("http: the daemon closed the connection");
        if (!conn_->read_head()) throw std::runtime_error("http: no answer within 10 s");
        status_ = conn_->status();
        if (auto id = conn_->header("mcp-session-id"); !id.empty()) session_ = id;
        HttpResult r{status_, {{"content-type", conn_->header("content-type")}}, conn_->body()};
        if (!conn_->ended()) throw std::runtime_error("http: the answer did not end");
        return r.body.empty() ? json::value() : mcp_message(r);
    }

    std::uint16_t port_;
    std::string token_;
    std::unique_ptr<HttpStream> conn_;
    std::string session_;
    int status_ = 0;
    std::int64_t next_id_ = 100;
};

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string only;  // --only latency|throughput|sessions (default: all)
    std::string upstream_kind = "test";  // --upstream test|everything
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--only" && i + 1 < argc) only = argv[++i];
        else if (a == "--upstream" && i + 1 < argc) upstream_kind = argv[++i];
        else {
            std::fprintf(stderr, "usage: coffer-bench-gateway [--quick] [--only latency|throughput|sessions] "
                                 "[--upstream test|everything]\n");
            return 2;
        }
    }
    auto want = [&](const char* phase) { return only.empty() || only == phase; };
    const int warmup = quick ? 50 : 500;
    int samples = quick ? 200 : 5000;  // per path
    if (const char* n = std::getenv("COFFER_BENCH_SAMPLES")) samples = std::atoi(n);
    int tp_calls = quick ? 500 : 5000;  // per throughput round
    if (const char* n = std::getenv("COFFER_BENCH_TP_CALLS")) tp_calls = std::max(1, std::atoi(n));
    int tp_rounds = quick ? 1 : 6;  // rounds per path (alternating)
    if (const char* n = std::getenv("COFFER_BENCH_TP_ROUNDS")) tp_rounds = std::max(1, std::atoi(n));
    // Calls per path before the rounds: server-everything's direct rate still climbs after 1,000
    // calls (V8 optimizes late), which made the no-op relays look costlier than they are.
    int tp_warmup = quick ? 500 : 5000;
    if (const char* n = std::getenv("COFFER_BENCH_TP_WARMUP")) tp_warmup = std::max(0, std::atoi(n));
    const int depth = 16;
    const int sessions = quick ? 20 : 100;
    const int rss_waits_ms = quick ? 200 : 1000;

    // The upstream's command line, and its echo tool's argument and answer.
    std::vector<std::string> upstream_argv{(bin_dir() / "coffer-test-upstream").string()};
    std::string argument = "text", expect = "benchmark payload";
    if (upstream_kind == "everything") {
        auto js = fs::path(COFFER_SOURCE_DIR) / "tests/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
        auto node = find_on_path("node");
        if (node.empty() || !fs::exists(js)) {
            std::fprintf(stderr, "--upstream everything needs node on PATH and %s (scripts/install-node-deps.sh)\n",
                         js.c_str());
            return 1;
        }
        upstream_argv = {node, js.string(), "stdio"};
        argument = "message";
        expect = "Echo: benchmark payload";
    } else if (upstream_kind != "test") {
        std::fprintf(stderr, "--upstream must be test or everything\n");
        return 2;
    }
    std::printf("upstream: %s\n", upstream_kind == "test" ? "coffer-test-upstream (C++)" : "server-everything (Node)");
    auto upstream = upstream_argv.front();
    auto shim = (bin_dir() / "coffer-mcp-shim").string();
    auto relay = (bin_dir() / "coffer-bench-relay").string();
    for (auto& p : {upstream, shim, relay, (bin_dir() / "coffer-daemon").string()})
        if (!fs::exists(p)) {
            std::fprintf(stderr, "missing %s (build coffer-bench-gateway's dependencies)\n", p.c_str());
            return 1;
        }

    try {
        TempDir dir;
        auto vault = dir.path() / "vault";
        Daemon d(vault);
        if (!d.start()) {
            std::fprintf(stderr, "daemon did not start: %s\n", d.log().c_str());
            return 1;
        }
        json::array args;
        for (std::size_t i = 1; i < upstream_argv.size(); ++i) args.emplace_back(upstream_argv[i]);
        json::object cfg{{"command", upstream}, {"args", args}};
        auto created = d.call("POST", "/api/v1/resources",
                              json::serialize(json::object{{"kind", "mcp_server"}, {"name", "up"}, {"config", cfg}}));
        if (created.status != 201) {
            std::fprintf(stderr, "registering the upstream failed: %d %s\n", created.status, created.body.c_str());
            return 1;
        }

        Path direct{"direct", std::make_unique<StdioPeer>(upstream_argv, std::map<std::string, std::string>{},
                                                          dir.path() / "direct.stderr"),
                    "echo", argument, expect};
        Path gateway{"gateway",
                     std::make_unique<StdioPeer>(std::vector<std::string>{shim, "--no-spawn", "--home", vault.string()},
                                                 std::map<std::string, std::string>{}, dir.path() / "shim.stderr"),
                     "up__echo", argument, expect};
        // A path through relays, the client's side first; a relay given a cost spends at least that
        // many ns of CPU in all per line it copies (coffer-bench-relay --cpu-ns-per-line).
        auto relayed_burning = [&](const std::string& label, const std::vector<long long>& costs) {
            std::vector<std::string> argv;
            for (auto ns : costs) {
                argv.push_back(relay);
                if (ns > 0) argv.insert(argv.end(), {"--cpu-ns-per-line", std::to_string(ns)});
            }
            argv.insert(argv.end(), upstream_argv.begin(), upstream_argv.end());
            return Path{label,
                        std::make_unique<StdioPeer>(argv, std::map<std::string, std::string>{},
                                                    dir.path() / (label + ".stderr")),
                        "echo", argument, expect};
        };
        auto relayed = [&](int relays) {
            return relayed_burning("relay" + std::to_string(relays), std::vector<long long>(static_cast<std::size_t>(relays), 0));
        };
        Path relay1 = relayed(1), relay2 = relayed(2);
        direct.handshake();
        gateway.handshake();
        relay1.handshake();
        relay2.handshake();
        // The gateway's upstream process (for CPU accounting): the daemon's child, once a call ran.
        gateway.call_once();
        pid_t gw_upstream = child_of(d.pid());
        if (gw_upstream < 0) throw std::runtime_error("the gateway's upstream process was not found");
        CpuMeter direct_cpu({{"upstream", direct.peer->pid()}});
        CpuMeter gateway_cpu({{"shim", gateway.peer->pid()}, {"daemon", d.pid()}, {"upstream", gw_upstream}});
        std::printf("processes: daemon %d, shim %d, gateway upstream %d, direct upstream %d\n", d.pid(),
                    gateway.peer->pid(), gw_upstream, direct.peer->pid());
        std::fflush(stdout);
        std::printf("cpu: per call, each process's CPU time (all threads, /proc/<pid>/task/*/schedstat) and context "
                    "switches (voluntary+involuntary)\n");

        // ---- 1. latency, alternating ------------------------------------------------------------
        if (want("latency")) {
            for (int i = 0; i < warmup; ++i) {
                direct.call_once();
                gateway.call_once();
            }
            std::vector<double> dl, gl, diff;
            dl.reserve(samples);
            gl.reserve(samples);
            direct_cpu.start();
            gateway_cpu.start();
            for (int i = 0; i < samples; ++i) {
                double a, b;
                if (i % 2 == 0) {
                    a = direct.call_once();
                    b = gateway.call_once();
                } else {
                    b = gateway.call_once();
                    a = direct.call_once();
                }
                dl.push_back(a);
                gl.push_back(b);
                diff.push_back(b - a);
            }
            auto ds = stats(dl), gs = stats(gl);
            std::printf("tools/call latency, one at a time (n=%d per path, alternating, after %d warm-up pairs), us\n",
                        samples, warmup);
            std::printf("  direct    p50=%7.1f  p90=%7.1f  p99=%7.1f  mean=%7.1f  max=%8.1f\n", ds.p50, ds.p90, ds.p99,
                        ds.mean, ds.max);
            std::printf("  gateway   p50=%7.1f  p90=%7.1f  p99=%7.1f  mean=%7.1f  max=%8.1f\n", gs.p50, gs.p90, gs.p99,
                        gs.mean, gs.max);
            std::printf("  overhead  p50=%7.1f  p90=%7.1f  p99=%7.1f   (gateway minus direct, per percentile; targets: "
                        "p50 <= 200, p99 <= 1000)\n",
                        gs.p50 - ds.p50, gs.p90 - ds.p90, gs.p99 - ds.p99);
            // The same, sample by sample: each gateway call minus the direct call made next to it
            // (the machine's momentary load cancels out; a direct call's own tail shows as negative).
            std::printf("  paired    p50=%7.1f  p90=%7.1f  p99=%7.1f\n", median(diff), percentile(diff, 0.9), percentile(diff, 0.99));
            std::printf("  cpu direct:  %s\n", direct_cpu.per_call(samples).c_str());
            std::printf("  cpu gateway: %s\n", gateway_cpu.per_call(samples).c_str());

            // The same against a client on Streamable HTTP straight to /mcp (keep-alive, no shim),
            // alternating with the shim path so both see the same machine; the daemon's CPU is
            // metered per path, each in its own stretch of calls.
            HttpPeer http(d.port(), d.token());
            http.handshake();
            for (int i = 0; i < warmup; ++i) http.call_once("up__echo", argument, expect);
            std::vector<double> hl, sl;
            CpuMeter daemon_http({{"daemon", d.pid()}}), daemon_shim({{"daemon", d.pid()}});
            const int stretch = 250;
            for (int done = 0; done < samples; done += stretch) {
                int n = std::min(stretch, samples - done);
                daemon_http.resume();
                for (int i = 0; i < n; ++i) hl.push_back(http.call_once("up__echo", argument, expect));
                daemon_http.pause();
                daemon_shim.resume();
                for (int i = 0; i < n; ++i) sl.push_back(gateway.call_once());
                daemon_shim.pause();
            }
            auto hs = stats(hl), ss = stats(sl);
            std::printf("front doors, alternating stretches of %d calls (n=%d each), us\n", stretch, samples);
            std::printf("  http /mcp p50=%7.1f  p90=%7.1f  p99=%7.1f  mean=%7.1f   (keep-alive client, no shim)\n",
                        hs.p50, hs.p90, hs.p99, hs.mean);
            std::printf("  shim      p50=%7.1f  p90=%7.1f  p99=%7.1f  mean=%7.1f\n", ss.p50, ss.p90, ss.p99, ss.mean);
            std::printf("  http/shim p50 = %.2f   (target: the HTTP front no slower than the shim path, <= 1.00)\n",
                        hs.p50 / ss.p50);
            std::printf("  cpu http: %s\n", daemon_http.accumulated(samples).c_str());
            std::printf("  cpu shim: %s\n", daemon_shim.accumulated(samples).c_str());

            // The floor of CPU per relayed call on this machine: a process that only copies bytes
            // (coffer-bench-relay), one call at a time, as the shim and the daemon each are. What
            // such a process spends is the price of being woken twice per call here.
            for (int i = 0; i < warmup; ++i) relay1.call_once();
            CpuMeter relay_cpu({{"relay", relay1.peer->pid()}});
            std::vector<double> rl;
            relay_cpu.start();
            for (int i = 0; i < samples; ++i) rl.push_back(relay1.call_once());
            auto rs = stats(rl);
            std::printf("floor: one no-op relay process in the path, one call at a time (n=%d), us\n", samples);
            std::printf("  relay1    p50=%7.1f  p90=%7.1f  p99=%7.1f  mean=%7.1f\n", rs.p50, rs.p90, rs.p99, rs.mean);
            std::printf("  cpu relay1: %s   (compare: shim and daemon above; targets shim <= 20, daemon <= 40)\n",
                        relay_cpu.per_call(samples).c_str());
        }

        // ---- 2. throughput, 16 in flight ----------------------------------------------------------
        if (want("throughput")) {
            struct Measured {
                Path* path;
                CpuMeter* cpu;
                std::vector<double> rates;
                MachineTotals machine;
            };
            // Each path's upstream is metered too: what it spends per call depends on how its
            // requests arrive (many per read, or one at a time), which the path in front decides.
            // A relay path's processes: each relay is the child of the one before it, and the
            // upstream is the last one's child.
            auto relay_chain = [&](Path& p, int relays) {
                std::vector<std::pair<std::string, pid_t>> procs;
                pid_t pid = p.peer->pid();
                for (int i = 0; i < relays; ++i, pid = child_of(pid)) procs.emplace_back("relay", pid);
                procs.emplace_back("upstream", pid);
                return CpuMeter(std::move(procs));
            };
            CpuMeter relay1_cpu = relay_chain(relay1, 1), relay2_cpu = relay_chain(relay2, 2);
            std::vector<Measured> paths{{&direct, &direct_cpu, {}, {}},
                                        {&relay1, &relay1_cpu, {}, {}},
                                        {&relay2, &relay2_cpu, {}, {}},
                                        {&gateway, &gateway_cpu, {}, {}}};
            for (auto& m : paths)
                if (tp_warmup > 0) m.path->pipelined(tp_warmup, depth);  // warm every path
            // What the warm shim and daemon spend per call at this depth.
            auto cpu_of = [&](Path& p, CpuMeter& meter) {
                meter.start();
                p.pipelined(tp_calls, depth);
                return meter.per_call_us(tp_calls);
            };
            const auto gw_cpu = cpu_of(gateway, gateway_cpu);  // shim, daemon, upstream
            // Two more paths of two relays that spend CPU per line so that each costs what a real
            // middle process does: "relay2@gw" what this gateway's shim and daemon just spent,
            // "relay2@aim" what the issue aims at (shim 20 us, daemon 40 us per call). A call is
            // two lines through each (request and answer). Each relay does all its work on one
            // thread before forwarding: the simplest design of that cost, a stand-in to compare
            // the gateway with, not a ceiling (ADR 0051).
            auto burn_for = [](double per_call_us) { return static_cast<long long>(per_call_us / 2 * 1000); };
            Path relay2_gw = relayed_burning("relay2@gw", {burn_for(gw_cpu.at(0)), burn_for(gw_cpu.at(1))});
            Path relay2_aim = relayed_burning("relay2@aim", {burn_for(20), burn_for(40)});
            relay2_gw.handshake();
            relay2_aim.handshake();
            CpuMeter relay2_gw_cpu = relay_chain(relay2_gw, 2), relay2_aim_cpu = relay_chain(relay2_aim, 2);
            paths.push_back({&relay2_gw, &relay2_gw_cpu, {}, {}});
            paths.push_back({&relay2_aim, &relay2_aim_cpu, {}, {}});
            for (auto* p : {&relay2_gw, &relay2_aim})
                if (tp_warmup > 0) p->pipelined(tp_warmup, depth);
            for (int r = 0; r < tp_rounds; ++r)
                for (std::size_t k = 0; k < paths.size(); ++k) {  // each round starts with another path
                    auto& m = paths[(k + static_cast<std::size_t>(r)) % paths.size()];
                    m.cpu->resume();
                    auto before = MachineSample::now();
                    m.rates.push_back(m.path->pipelined(tp_calls, depth));
                    m.machine.add(before, MachineSample::now(), tp_calls);
                    m.cpu->pause();
                }
            auto list = [](const std::vector<double>& v) {
                std::string s;
                for (auto x : v) s += (s.empty() ? "" : " ") + std::to_string(static_cast<long>(x));
                return s;
            };
            std::printf("throughput, %d calls in flight (%d rounds x %d calls per path, alternating), calls/s\n", depth,
                        tp_rounds, tp_calls);
            for (auto& m : paths)
                std::printf("  %-8s  median=%8.0f  rounds: %s\n", m.path->label.c_str(), median(m.rates),
                            list(m.rates).c_str());
            double d = median(paths[0].rates), r1 = median(paths[1].rates), r2 = median(paths[2].rates),
                   g = median(paths[3].rates);
            // Each round runs every path back to back, so a round's ratio cancels most of what the
            // machine's neighbours do over minutes; the median of those is the steadier figure.
            std::vector<double> paired;
            for (std::size_t r = 0; r < paths[0].rates.size(); ++r) paired.push_back(100.0 * paths[3].rates[r] / paths[0].rates[r]);
            std::printf("  gateway/direct = %.1f %%   (target >= 80 %%); paired by round: median %.1f %%, rounds: %s\n",
                        100.0 * g / d, median(paired), list(paired).c_str());
            std::printf("  floor: relay1/direct = %.1f %%, relay2/direct = %.1f %% (no-op byte copiers in the path)\n",
                        100.0 * r1 / d, 100.0 * r2 / d);
            std::printf("  gateway/relay2 = %.1f %%   (the gateway against two no-op processes in its place)\n",
                        100.0 * g / r2);
            double rg = median(paths[4].rates), ra = median(paths[5].rates);
            std::vector<double> paired_gw;
            for (std::size_t r = 0; r < paths[0].rates.size(); ++r) paired_gw.push_back(100.0 * paths[3].rates[r] / paths[4].rates[r]);
            std::printf("  relays costing what this gateway costs (%.1f + %.1f us per call): relay2@gw/direct = %.1f %%, "
                        "gateway/relay2@gw = %.1f %%; paired by round: median %.1f %%, rounds: %s\n",
                        gw_cpu.at(0), gw_cpu.at(1), 100.0 * rg / d, 100.0 * g / rg, median(paired_gw),
                        list(paired_gw).c_str());
            std::printf("  relays costing the aims (20 + 40 us per call): relay2@aim/direct = %.1f %%\n", 100.0 * ra / d);
            for (auto& m : paths)
                std::printf("  cpu %-10s %s\n", m.path->label.c_str(), m.cpu->accumulated(m.machine.calls).c_str());
            // What bounds each path: the whole machine's CPU per call (every process, the client
            // included) and the share of the machine's cores it kept busy. With the machine busy,
            // calls/s is cores x busy share / CPU per call.
            const double cores = static_cast<double>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
            std::printf("machine during the rounds (%g cores, /proc/stat: the whole machine, neighbours included): CPU per "
                        "call of everything, client's part, busy share\n",
                        cores);
            for (auto& m : paths) {
                auto& t = m.machine;
                if (t.busy_s <= 0 || t.calls == 0) {  // /proc/stat counts in ticks (10 ms): a --quick round may see none
                    std::printf("  %-8s  too short to measure\n", m.path->label.c_str());
                    continue;
                }
                double per_call = 1e6 * t.busy_s / static_cast<double>(t.calls);
                std::printf("  %-8s  machine %6.1f us/call  client %5.1f us/call  busy %5.1f %%  -> bound %8.0f calls/s\n",
                            m.path->label.c_str(), per_call, 1e6 * t.client_s / static_cast<double>(t.calls),
                            100.0 * t.busy_s / (t.busy_s + t.idle_s), 1e6 * cores / per_call);
            }
        }
        if (!want("sessions")) return 0;

        // The shim session stays open; its upstream is part of the baseline below.
        direct.peer.reset();
        relay1.peer.reset();
        relay2.peer.reset();

        // ---- 3. memory per idle session -----------------------------------------------------------
        std::this_thread::sleep_for(std::chrono::milliseconds(rss_waits_ms));
        auto before = mem_of(d.pid());
        auto pids_before = count_entries(vault / "upstream-pids");
        std::vector<HttpSession> hs(static_cast<std::size_t>(sessions));
        auto t_open = Clock::now();
        for (auto& s : hs)
            if (!open_http_session(d, s)) {
                std::fprintf(stderr, "opening an HTTP session failed\n%s\n", d.log().c_str());
                return 1;
            }
        double open_ms = us_since(t_open) / 1000.0;
        std::this_thread::sleep_for(std::chrono::milliseconds(rss_waits_ms));
        auto after = mem_of(d.pid());
        auto pids_after = count_entries(vault / "upstream-pids");
        auto per = [&](long a, long b) { return static_cast<double>(a - b) / 1024.0 / sessions; };
        std::printf("daemon memory per idle session (%d Streamable HTTP sessions, each with its upstream running)\n",
                    sessions);
        std::printf("  upstream processes: %zu before, %zu after (separate processes, not counted below)\n", pids_before,
                    pids_after);
        std::printf("  VmRSS    %7.1f -> %7.1f MB   = %.3f MB per session\n", before.rss / 1024.0, after.rss / 1024.0,
                    per(after.rss, before.rss));
        std::printf("  PSS      %7.1f -> %7.1f MB   = %.3f MB per session\n", before.pss / 1024.0, after.pss / 1024.0,
                    per(after.pss, before.pss));
        std::printf("  private  %7.1f -> %7.1f MB   = %.3f MB per session   (target <= 1 MB)\n", before.priv / 1024.0,
                    after.priv / 1024.0, per(after.priv, before.priv));
        std::printf("  opening them one after another (initialize + initialized + first call): %.0f ms\n", open_ms);
        if (pids_after < pids_before + static_cast<std::size_t>(sessions)) {
            std::fprintf(stderr, "expected %d more upstream processes\n", sessions);
            return 1;
        }

        // ---- 4. all sessions call at once ---------------------------------------------------------
        const int concurrent_rounds = quick ? 1 : 3;
        std::printf("%d sessions calling concurrently (one tools/call each, own connection)\n", sessions);
        int total_errors = 0;
        for (int round = 0; round < concurrent_rounds; ++round) {
            std::mutex mu;
            std::condition_variable cv;
            bool go = false;
            std::atomic<int> errors{0};
            std::vector<double> each(hs.size());
            std::vector<std::thread> threads;
            for (std::size_t i = 0; i < hs.size(); ++i)
                threads.emplace_back([&, i] {
                    {
                        std::unique_lock<std::mutex> l(mu);
                        cv.wait(l, [&] { return go; });
                    }
                    auto t0 = Clock::now();
                    if (!http_call_ok(d, hs[i], 10 + round)) ++errors;
                    each[i] = us_since(t0) / 1000.0;
                });
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            auto t0 = Clock::now();
            {
                std::lock_guard<std::mutex> l(mu);
                go = true;
            }
            cv.notify_all();
            for (auto& t : threads) t.join();
            double wall = us_since(t0) / 1000.0;
            std::printf("  round %d: all done in %.1f ms, per call p50=%.1f ms max=%.1f ms, errors=%d\n", round + 1, wall,
                        median(each), *std::max_element(each.begin(), each.end()), errors.load());
            total_errors += errors.load();
        }
        if (total_errors) {
            std::fprintf(stderr, "%d concurrent calls failed\n", total_errors);
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "benchmark failed: %s\n", e.what());
        return 1;
    }
    return 0;
}
