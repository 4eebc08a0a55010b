// Tool search benchmark (SPEC G-24; target: coffer__search_tools p50 ≤ 1 ms over 10,000 tools).
// Prints figures; asserts nothing about time.
//
// 1. The ranker alone: the eval set (tests/eval/toolsearch, 353 tools) replicated with varied
//    server names and descriptions up to 10,000 tools; index build time, then every eval query
//    many times: per-query latency p50 / p99 / max.
// 2. The whole path: a real daemon with two mcp_echo servers of 5,000 tools each (10,000 + their
//    own), a session calling coffer__search_tools over HTTP — the first call (lists fetched,
//    index built), then warm calls (cached lists, fingerprint, cached index, query, JSON answer).
//
//   coffer-bench-toolsearch            10,000 tools, full rounds
//   coffer-bench-toolsearch --quick    fewer rounds (what ctest runs, to keep it working)
#include "mcp_client.hpp"
#include "stats.hpp"
#include "toolsearch/index.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifndef COFFER_EVAL_DIR
#define COFFER_EVAL_DIR "."
#endif

using namespace coffer::test;
namespace fs = std::filesystem;
namespace json = boost::json;
namespace ts = coffer::toolsearch;
using clk = std::chrono::steady_clock;

namespace {

double us_since(clk::time_point t0) { return std::chrono::duration<double, std::micro>(clk::now() - t0).count(); }

json::value read_json(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return json::parse(text);
}

constexpr const char* kVariants[] = {
    "for the team workspace",      "in the staging environment", "with audit logging",     "using the v2 API",
    "for enterprise accounts",     "in the secondary region",    "through the proxy",      "for archived projects",
    "with retries on failure",     "in read-only mode",          "for the mobile backend", "scoped to one tenant",
    "with pagination support",     "in the sandbox",             "for internal tools",     "with rate limiting",
};

// The eval set's captured tools (with their servers' instructions), copied with varied names and descriptions until there are `n`.
std::vector<ts::ToolText> synthesize(std::size_t n, std::vector<std::string>& queries) {
    std::vector<ts::ToolText> base;
    std::vector<std::string> files;
    for (auto& e : fs::directory_iterator(fs::path(COFFER_EVAL_DIR) / "servers")) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
        auto doc = read_json(f).as_object();
        std::string server(doc.at("server").as_string());
        for (auto& t : doc.at("tools").as_array()) {
            auto text = ts::tool_text(t.as_object());
            text.name = server + "__" + text.name;
            if (auto* v = doc.if_contains("instructions"); v && v->is_string()) text.instructions = v->as_string();
            base.push_back(std::move(text));
        }
    }
    for (const char* part : {"queries.tune.json", "queries.heldback.json"}) {
        auto qs = read_json(fs::path(COFFER_EVAL_DIR) / part);
        for (auto& q : qs.at("queries").as_array()) queries.emplace_back(q.at("query").as_string());
    }
    std::vector<ts::ToolText> out;
    out.reserve(n);
    for (std::size_t copy = 0; out.size() < n; ++copy) {
        for (std::size_t i = 0; i < base.size() && out.size() < n; ++i) {
            auto t = base[i];
            if (copy) {
                auto sep = t.name.find("__");
                t.name = t.name.substr(0, sep) + std::to_string(copy) + t.name.substr(sep);
                t.description += " ";
                t.description += kVariants[(copy * 7 + i) % std::size(kVariants)];
            }
            out.push_back(std::move(t));
        }
    }
    return out;
}

int ranker(bool quick) {
    std::vector<std::string> queries;
    auto tools = synthesize(10000, queries);
    std::vector<double> build_ms;
    ts::Index index;
    for (int i = 0; i < (quick ? 1 : 5); ++i) {
        auto t0 = clk::now();
        index = ts::Index(tools);
        build_ms.push_back(us_since(t0) / 1000.0);
    }
    std::printf("ranker: %zu tools, %zu terms; index build ms  median=%.1f  (n=%zu)\n", index.size(), index.terms(),
                percentile(build_ms, 0.5), build_ms.size());
    std::vector<double> lat;
    int rounds = quick ? 3 : 50;
    std::size_t found = 0;
    for (int r = 0; r < rounds; ++r)
        for (auto& q : queries) {
            auto t0 = clk::now();
            auto hits = index.query(q, 5);
            lat.push_back(us_since(t0));
            found += !hits.empty();
        }
    std::printf("ranker: query (top 5) us  p50=%.1f  p99=%.1f  max=%.1f  (n=%zu, %zu with results)\n", percentile(lat, 0.5),
                percentile(lat, 0.99), *std::max_element(lat.begin(), lat.end()), lat.size(), found);
    return found ? 0 : 1;
}

int gateway(bool quick) {
    EchoDaemon echo;
    auto& d = echo.d;
    int per = quick ? 500 : 5000;
    add_echo(d, "alpha", R"({"extra_tools":)" + std::to_string(per) + "}");
    add_echo(d, "beta", R"({"extra_tools":)" + std::to_string(per) + "}");
    McpClient c(d);
    c.initialize();
    auto call = [&](const std::string& q) {
        return c.request("tools/call", json::object{{"name", "coffer__search_tools"},
                                                    {"arguments", json::object{{"query", q}, {"top_k", 5}}}});
    };
    auto t0 = clk::now();
    auto first = call("t0042");
    double first_ms = us_since(t0) / 1000.0;
    auto* sc = first.json.is_object() ? first.json.as_object().if_contains("result") : nullptr;
    if (!sc || !sc->as_object().contains("structuredContent")) {
        std::fprintf(stderr, "coffer__search_tools failed: %s\n", first.body.c_str());
        return 1;
    }
    auto& found = sc->at("structuredContent");
    auto searched = found.at("total_searched").as_int64();
    if (found.at("tools").as_array().empty() || found.at("tools").at(0).at("name").as_string() != "alpha__t0042") {
        std::fprintf(stderr, "unexpected result: %s\n", first.body.c_str());
        return 1;
    }
    std::printf("gateway: %lld tools searched; first call (lists fetched, index built) ms  %.1f\n",
                static_cast<long long>(searched), first_ms);
    std::vector<double> lat;
    int calls = quick ? 20 : 500;
    for (int i = 0; i < calls; ++i) {
        char q[32];
        std::snprintf(q, sizeof q, i % 2 ? "t%04d" : "echo search %d", (i * 37) % per);
        auto t1 = clk::now();
        auto r = call(q);
        lat.push_back(us_since(t1) / 1000.0);
        if (r.status != 200) return 1;
    }
    std::printf("gateway: warm coffer__search_tools over HTTP ms  p50=%.3f  p99=%.3f  (n=%d)\n", percentile(lat, 0.5),
                percentile(lat, 0.99), calls);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    try {
        if (int rc = ranker(quick)) return rc;
        return gateway(quick);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "coffer-bench-toolsearch: %s\n", e.what());
        return 1;
    }
}
