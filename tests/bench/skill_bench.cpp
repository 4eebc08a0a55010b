// Skill benchmark (issue 5): import and deliver 500 skills of ~20 files each to both agent
// targets (target ≤ 5 s), then `verify` over them (target ≤ 500 ms). Real daemon, temporary HOME
// and COFFER_HOME, every call over REST. Prints figures; asserts nothing about time.
//
//   coffer-bench-skill            500 skills
//   coffer-bench-skill --quick    50 skills (what ctest runs, to keep it working)
#include "daemon_fixture.hpp"
#include "stats.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>
#include <string>
#include <vector>

using namespace coffer::test;
namespace fs = std::filesystem;
namespace json = boost::json;
using clk = std::chrono::steady_clock;

namespace {

double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::string filler(std::size_t bytes, int seed) {
    std::string s;
    while (s.size() < bytes) s += "line " + std::to_string(seed) + ": lorem ipsum dolor sit amet, consectetur.\n";
    s.resize(bytes);
    return s;
}

// 20 files: SKILL.md, 3 scripts, 8 references, 8 assets; 200 B – 4 KiB each.
std::uint64_t make_skill(const fs::path& root, const std::string& name, int i) {
    std::uint64_t bytes = 0;
    auto put = [&](const fs::path& p, const std::string& text) {
        write(p, text);
        bytes += text.size();
    };
    put(root / "SKILL.md", "---\nname: " + name + "\ndescription: Benchmark skill number " + std::to_string(i) +
                               " that helps with generated tasks.\nlicense: MIT\nmetadata:\n  author: bench\n---\n" +
                               filler(1500, i));
    for (int k = 0; k < 3; ++k) {
        put(root / "scripts" / ("tool" + std::to_string(k) + ".sh"), "#!/bin/sh\n" + filler(400 + 100 * static_cast<std::size_t>(k), k));
        fs::permissions(root / "scripts" / ("tool" + std::to_string(k) + ".sh"), fs::perms::owner_exec, fs::perm_options::add);
    }
    for (int k = 0; k < 8; ++k) put(root / "references" / ("ref" + std::to_string(k) + ".md"), filler(800 + 400 * static_cast<std::size_t>(k), i + k));
    for (int k = 0; k < 8; ++k) put(root / "assets" / ("asset" + std::to_string(k) + ".txt"), filler(200 + 100 * static_cast<std::size_t>(k), k));
    return bytes;
}

// CPU time (user + system) the process has used so far, in ms: less sensitive than wall time to
// other work on the machine.
double cpu_ms(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(text.substr(close + 2));
    std::string f;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {
        if (i == 14) utime = std::stoull(f);
        if (i == 15) stime = std::stoull(f);
    }
    return static_cast<double>(utime + stime) * 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    const int skills = quick ? 50 : 500;
    const int verify_runs = quick ? 3 : 10;

    TempDir dir;
    auto home = dir.path() / "home";
    auto src = dir.path() / "src";
    fs::create_directories(home);

    std::uint64_t bytes = 0;
    std::size_t files_per_skill = 0;
    for (int i = 0; i < skills; ++i) {
        auto name = "bench-skill-" + std::to_string(i);
        bytes += make_skill(src / name, name, i);
    }
    for (auto& e : fs::recursive_directory_iterator(src / "bench-skill-0"))
        files_per_skill += e.is_regular_file() ? 1 : 0;

    Daemon d(dir.path() / "vault", {{"HOME", home.string()}});
    if (!d.start()) {
        std::fprintf(stderr, "daemon did not start: %s\n", d.log().c_str());
        return 1;
    }

    // 1. Import + deliver (to claude_code and codex) every skill, one REST call each.
    std::vector<double> per_call;
    double cpu0 = cpu_ms(d.pid());
    auto t0 = clk::now();
    for (int i = 0; i < skills; ++i) {
        auto name = "bench-skill-" + std::to_string(i);
        auto body = R"({"kind":"skill","name":")" + name + R"(","config":{"source":")" + (src / name).string() + R"("}})";
        auto t = clk::now();
        auto r = d.call("POST", "/api/v1/resources", body);
        per_call.push_back(ms_since(t));
        if (r.status != 201) {
            std::fprintf(stderr, "import of %s failed: %d %s\n", name.c_str(), r.status, r.body.c_str());
            return 1;
        }
    }
    double import_ms = ms_since(t0);
    double import_cpu = cpu_ms(d.pid()) - cpu0;
    std::size_t delivered = 0;
    for (auto agent : {".claude", ".agents"})
        for (auto& e : fs::recursive_directory_iterator(home / agent / "skills")) delivered += e.is_regular_file() ? 1 : 0;
    std::printf("skills                      %d (%zu files each, %.1f MiB in all)\n", skills, files_per_skill,
                static_cast<double>(bytes) / (1024.0 * 1024.0));
    std::printf("import_and_deliver_ms       total=%.0f  per_skill p50=%.2f p99=%.2f  daemon_cpu=%.0f  (%zu files delivered; target <= 5000 for 500)\n",
                import_ms, percentile(per_call, 0.5), percentile(per_call, 0.99), import_cpu, delivered);

    // 2. verify over every skill (kind action; stat-cache fast path), then with every file hashed.
    auto verify = [&](const std::string& args, json::value* out) {
        auto t = clk::now();
        auto r = d.call("POST", "/api/v1/kinds/skill/actions/verify", args);
        double ms = ms_since(t);
        if (r.status != 200) {
            std::fprintf(stderr, "verify failed: %d %s\n", r.status, r.body.c_str());
            std::exit(1);
        }
        if (out) *out = parse(r.body);
        return ms;
    };
    std::vector<double> fast, deep;
    json::value report;
    double vcpu0 = cpu_ms(d.pid());
    for (int i = 0; i < verify_runs; ++i) fast.push_back(verify("{}", &report));
    double verify_cpu = (cpu_ms(d.pid()) - vcpu0) / verify_runs;
    for (int i = 0; i < std::max(1, verify_runs / 3); ++i) deep.push_back(verify(R"({"deep":true})", nullptr));
    auto& summary = report.at("result").at("summary");
    std::printf("verify_ms                   p50=%.1f max=%.1f  daemon_cpu_per_run=%.0f  (n=%d, %lld targets ok; target <= 500)\n",
                percentile(fast, 0.5), *std::max_element(fast.begin(), fast.end()), verify_cpu, verify_runs,
                static_cast<long long>(summary.at("ok").as_int64()));
    std::printf("verify_deep_ms              p50=%.1f max=%.1f  (every file hashed)\n", percentile(deep, 0.5),
                *std::max_element(deep.begin(), deep.end()));

    // 3. Drift in 10 skills, then verify --repair.
    for (int i = 0; i < 10 && i < skills; ++i) {
        auto name = "bench-skill-" + std::to_string(i);
        write(home / ".claude" / "skills" / name / "references" / "ref0.md", "edited\n");
        fs::remove(home / ".agents" / "skills" / name / "assets" / "asset3.txt");
    }
    json::value repaired;
    double repair_ms = verify(R"({"repair":true})", &repaired);
    std::printf("verify_repair_ms            %.1f  (%lld targets repaired)\n", repair_ms,
                static_cast<long long>(repaired.at("result").at("summary").at("repaired").as_int64()));

    // 4. Daemon restart with every skill delivered (each is checked, nothing rewritten).
    d.stop();
    auto t1 = clk::now();
    if (!d.start()) {
        std::fprintf(stderr, "daemon did not restart: %s\n", d.log().c_str());
        return 1;
    }
    std::printf("restart_to_ready_ms         %.0f  (with %d skills)\n", ms_since(t1), skills);
    return 0;
}
