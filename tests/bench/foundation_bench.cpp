// Foundation benchmark (issue 2): cold start to ready, idle RSS with all plugins loaded, and the
// `coffer resource list --json` round trip with 1,000 resources. Prints figures; asserts nothing
// about time.
#include "daemon_fixture.hpp"
#include "stats.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

using namespace coffer::test;
namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

namespace {

long rss_kb(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

std::vector<std::string> all_good_plugins() {
    std::vector<std::string> out;
    for (auto c : {"test_kind", "c_kind"})
        if (fs::exists(test_plugin_dir() / c)) out.emplace_back(c);
    return out;
}

// Start to the first 200 from /daemon/status, polling every 0.2 ms; -1 when it never came.
double cold_start_ms(const fs::path& vault) {
    fs::remove(vault / "daemon.json");
    auto t0 = clk::now();
    auto pid = spawn({(bin_dir() / "coffer-daemon").string()}, {{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}},
                     vault / "daemon.stderr");
    double ms = -1;
    if (pid <= 0) return ms;
    while (clk::now() - t0 < std::chrono::seconds(10)) {
        std::ifstream in(vault / "daemon.json");
        if (in) {
            std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            auto v = parse(text);
            if (v.is_object()) {
                auto port = static_cast<std::uint16_t>(v.at("port").as_int64());
                auto r = http_request(port, "GET", "/api/v1/daemon/status", "",
                                      {{"X-Coffer-Token", std::string(v.at("token").as_string())}});
                if (r.status == 200) {
                    ms = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
                    break;
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ::kill(pid, SIGTERM);
    wait_pid(pid, std::chrono::seconds(10));
    return ms;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    int starts = quick ? 3 : 20;
    int resources = quick ? 100 : 1000;
    int list_runs = quick ? 5 : 50;

    TempDir dir;
    auto vault = dir.path() / "vault";
    fs::create_directories(vault);
    auto plugins = all_good_plugins();
    install_test_plugins(vault, plugins);

    // 1. Cold start to ready (first start creates the database; measure the later ones too).
    std::vector<double> cold;
    for (int i = 0; i < starts; ++i) {
        auto ms = cold_start_ms(vault);
        if (ms < 0) {
            std::fprintf(stderr, "daemon did not become ready\n");
            return 1;
        }
        cold.push_back(ms);
    }
    std::printf("cold_start_to_ready_ms   p50=%.1f  max=%.1f  (n=%d, %zu plugins)\n", percentile(cold, 0.5),
                *std::max_element(cold.begin(), cold.end()), starts, plugins.size());

    // 2. Idle RSS with every plugin loaded.
    Daemon d(vault);
    if (!d.start()) {
        std::fprintf(stderr, "daemon did not start: %s\n", d.log().c_str());
        return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(quick ? 200 : 1000));
    std::printf("idle_rss_mb              %.1f\n", static_cast<double>(rss_kb(d.pid())) / 1024.0);

    // 3. `coffer resource list --json` with N resources.
    for (int i = 0; i < resources; ++i) {
        auto body = R"({"kind":"test_kind","name":"r)" + std::to_string(i) + R"(","config":{"value":)" +
                    std::to_string(i * 2) + R"(,"label":"resource )" + std::to_string(i) + R"("}})";
        auto r = d.call("POST", "/api/v1/resources", body);
        if (r.status != 201) {
            std::fprintf(stderr, "create failed: %d %s\n", r.status, r.body.c_str());
            return 1;
        }
    }
    std::printf("idle_rss_mb_after_%d     %.1f\n", resources, static_cast<double>(rss_kb(d.pid())) / 1024.0);
    if (!fs::exists(bin_dir() / "coffer")) {
        std::printf("cli_resource_list_ms     (coffer CLI not built)\n");
        return 0;
    }
    std::vector<double> list_ms, rest_ms;
    for (int i = 0; i < list_runs; ++i) {
        auto t0 = clk::now();
        auto r = d.cli({"resource", "list", "--json"});
        list_ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t0).count());
        if (r.exit_code != 0 || r.out.size() < static_cast<std::size_t>(resources) * 50) {
            std::fprintf(stderr, "list failed: %d %s\n", r.exit_code, r.err.c_str());
            return 1;
        }
        auto t1 = clk::now();
        auto h = d.call("GET", "/api/v1/resources");
        rest_ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t1).count());
        if (h.status != 200) return 1;
    }
    std::printf("cli_resource_list_ms     p50=%.2f  p95=%.2f  (%d resources, n=%d)\n", percentile(list_ms, 0.5),
                percentile(list_ms, 0.95), resources, list_runs);
    std::printf("rest_resource_list_ms    p50=%.2f  p95=%.2f\n", percentile(rest_ms, 0.5), percentile(rest_ms, 0.95));
    return 0;
}
