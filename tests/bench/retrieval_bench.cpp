// Retrieval benchmark (lib/retrieval). Prints figures; asserts nothing about time.
//
// A deterministic generator writes N Markdown documents (default 10,000, ~50 MB: frontmatter,
// 4-8 sections of English-like prose, some code fences, some Chinese) into a temporary folder,
// then measures:
//   1. a full sync from an empty index (goal ≤ 10 s, no embeddings),
//   2. keyword search over 200 queries, p50 / p95 (goal ≤ 5 ms p50),
//   3. embedding every chunk with an in-process 384-d hashed bag-of-words embedder, then
//      vector search over all chunks (goal ≤ 20 ms p50 at 60,000 chunks) and hybrid (≤ 5 ms goal),
//   4. re-sync after editing one file (goal ≤ 50 ms),
//   5. RSS growth of the process.
//
//   coffer-bench-retrieval              10,000 documents
//   coffer-bench-retrieval --docs N     N documents
//   coffer-bench-retrieval --quick      500 documents, fewer queries (what ctest runs)
#include "bag_of_words.hpp"
#include "stats.hpp"
#include "temp_dir.hpp"
#include "retrieval/index.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace coffer::retrieval;
using coffer::test::percentile;
namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

namespace {

double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }

long rss_kb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

// A small linear congruential generator: the same corpus on every run and machine.
struct Rng {
    std::uint64_t s;
    std::uint32_t next() {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>(s >> 33);
    }
    std::size_t below(std::size_t n) { return next() % n; }
};

// ~3,000 made-up English-like words from syllables, with a Zipf-ish pick (small indexes often).
std::vector<std::string> vocabulary(Rng& r) {
    const char* syl[] = {"ka", "lo", "mi", "ter", "on", "ra", "ven", "sto", "pel", "dri", "qua", "ne", "bar",
                         "sen", "tor", "ul", "fi", "gra", "mon", "est", "ply", "cor", "de", "an"};
    std::vector<std::string> v = {"install", "configure", "proxy", "deploy", "database", "backup", "release",
                                  "token",   "server",    "client", "cache", "index",    "search", "vector"};
    while (v.size() < 3000) {
        std::string w;
        for (std::size_t n = 2 + r.below(3); n > 0; --n) w += syl[r.below(std::size(syl))];
        v.push_back(w);
    }
    return v;
}

const std::string& pick(const std::vector<std::string>& v, Rng& r) {
    std::size_t a = r.below(v.size()), b = r.below(v.size());
    return v[std::min(a, b)];  // favours the front: common words exist
}

const char* kChinese[] = {"数据库连接池的配置方法", "向量检索与关键词检索", "部署流程需要审批", "备份与恢复策略"};

std::string document(std::size_t i, const std::vector<std::string>& vocab, Rng& r) {
    std::string d = "---\ntitle: " + pick(vocab, r) + " " + pick(vocab, r) + " " + std::to_string(i) + "\n---\n";
    std::size_t sections = 4 + r.below(5);
    for (std::size_t s = 0; s < sections; ++s) {
        d += "\n" + std::string(s == 0 ? "# " : "## ") + pick(vocab, r) + " " + pick(vocab, r) + "\n\n";
        std::size_t paras = 1 + r.below(3);
        for (std::size_t p = 0; p < paras; ++p) {
            std::size_t words = 25 + r.below(45);
            for (std::size_t w = 0; w < words; ++w) d += pick(vocab, r) + (w % 12 == 11 ? ".\n" : " ");
            if (r.below(10) == 0) d += kChinese[r.below(std::size(kChinese))];
            d += "\n\n";
        }
        if (r.below(6) == 0) d += "```sh\n" + pick(vocab, r) + " --flag " + pick(vocab, r) + "\n```\n";
    }
    return d;
}

void print_latency(const char* what, std::vector<double>& ms, const char* goal) {
    std::printf("%-34s p50 %8.3f ms   p95 %8.3f ms   (%zu queries; goal %s)\n", what, percentile(ms, 0.5),
                percentile(ms, 0.95), ms.size(), goal);
}

std::vector<double> run_queries(Index& idx, const std::vector<Collection>& cols, const std::vector<std::string>& qs,
                                Mode mode, Embedder* e, std::size_t& hits, bool& degraded) {
    std::vector<double> ms;
    for (const auto& text : qs) {
        Query q;
        q.text = text;
        q.collections = {cols[0].name};
        q.mode = mode;
        auto t0 = clk::now();
        auto a = idx.search(q, cols, e);
        ms.push_back(ms_since(t0));
        hits += a.hits.size();
        degraded = degraded || a.degraded;
    }
    return ms;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t docs = 10000, queries = 200;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) docs = 500, queries = 40;
        else if (!std::strcmp(argv[i], "--docs") && i + 1 < argc) docs = std::stoul(argv[++i]);
    }
    coffer::test::TempDir dir("bench-retrieval");
    Collection kb{"kb", dir / "kb"};
    Rng r{42};
    auto vocab = vocabulary(r);
    std::size_t bytes = 0;
    auto tgen = clk::now();
    for (std::size_t i = 0; i < docs; ++i) {
        fs::path p = kb.root / ("dir" + std::to_string(i % 50)) / ("doc" + std::to_string(i) + ".md");
        fs::create_directories(p.parent_path());
        std::string text = document(i, vocab, r);
        bytes += text.size();
        std::ofstream(p, std::ios::binary) << text;
    }
    std::printf("corpus: %zu documents, %.1f MB (generated in %.1f s)\n", docs, bytes / 1e6, ms_since(tgen) / 1000);

    long rss0 = rss_kb();
    Index idx(dir / "index.db");
    auto t0 = clk::now();
    auto s = idx.sync(kb);
    std::printf("full index: %.2f s  (%zu files, %zu chunks; goal <= 10 s)\n", ms_since(t0) / 1000, s.added, s.chunks);

    std::vector<std::string> qs;
    for (std::size_t i = 0; i < queries; ++i) {
        std::size_t n = 1 + r.below(3);
        std::string q;
        for (std::size_t w = 0; w < n; ++w) q += (w ? " " : "") + pick(vocab, r);
        if (i % 10 == 0) q = "how do I " + q + "?";
        if (i % 25 == 0) q = "连接池的配置";
        qs.push_back(q);
    }
    std::vector<Collection> cols = {kb};
    std::size_t hits = 0;
    bool degraded = false;
    run_queries(idx, cols, {qs.begin(), qs.begin() + 5}, Mode::keyword, nullptr, hits, degraded);  // warm
    hits = 0;
    auto kw = run_queries(idx, cols, qs, Mode::keyword, nullptr, hits, degraded);
    print_latency("keyword search", kw, "<= 5 ms p50");
    std::printf("  (%.1f hits per query)\n", static_cast<double>(hits) / qs.size());

    coffer::test::BagOfWordsEmbedder bow(384);
    t0 = clk::now();
    std::size_t embedded = idx.embed_pending("kb", bow);
    std::printf("embed_pending (in-process 384-d): %zu chunks in %.2f s\n", embedded, ms_since(t0) / 1000);
    run_queries(idx, cols, {qs.begin(), qs.begin() + 2}, Mode::vector, &bow, hits, degraded);  // loads vectors
    hits = 0;
    auto vec = run_queries(idx, cols, qs, Mode::vector, &bow, hits, degraded);
    char label[80];
    std::snprintf(label, sizeof label, "vector search (%zu x 384)", idx.stats("kb").vectors);
    print_latency(label, vec, "<= 20 ms p50 at 60,000");
    auto hyb = run_queries(idx, cols, qs, Mode::hybrid, &bow, hits, degraded);
    print_latency("hybrid search", hyb, "<= 5 ms p50");
    if (degraded) std::printf("  WARNING: some answers were degraded\n");

    fs::path victim = kb.root / "dir7" / "doc7.md";
    std::ofstream(victim, std::ios::app) << "\n## appended\n\nan edit made by the benchmark\n";
    t0 = clk::now();
    auto s2 = idx.sync(kb);
    std::printf("re-sync after editing one file: %.1f ms  (updated %zu, unchanged %zu; goal <= 50 ms)\n", ms_since(t0),
                s2.updated, s2.unchanged);
    // What the plugins do when their watcher names the changed file: refresh just that file.
    std::ofstream(victim, std::ios::app) << "\nanother edit, picked up by a watcher\n";
    t0 = clk::now();
    idx.refresh(kb, "dir7/doc7.md");
    std::printf("refresh of the one edited file (the watcher's path): %.1f ms  (goal <= 50 ms)\n", ms_since(t0));
    std::printf("RSS growth: %.1f MB\n", (rss_kb() - rss0) / 1024.0);
    return s2.updated == 1 ? 0 : 1;
}
