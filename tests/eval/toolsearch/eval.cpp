// Ranking quality of the tool search (SPEC G-24) over the eval set next to this file: every tool
// of servers/*.json is indexed under its namespaced name (<server>__<tool>), every query of
// queries.json is run, and a query counts as found at k when one of its expected tools is among
// the first k results. Prints recall@1, recall@3, recall@5 and MRR (over the full ranking).
//
//   coffer-eval-toolsearch [--dir DIR] [--min-recall3 X] [--verbose]
//
// Exits 1 when recall@3 is below --min-recall3 (what ctest checks), 2 when the set cannot be read.
#include "toolsearch/index.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#ifndef COFFER_EVAL_DIR
#define COFFER_EVAL_DIR "."
#endif

namespace fs = std::filesystem;
namespace json = boost::json;
namespace ts = coffer::toolsearch;

namespace {

json::value read_json(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return json::parse(text);
}

bool has_cjk(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE3; });
}

struct Tally {
    int n = 0, at1 = 0, at3 = 0, at5 = 0;
    double rr = 0;
    void add(std::size_t rank) {  // 1-based; 0 = not found
        ++n;
        at1 += rank == 1;
        at3 += rank >= 1 && rank <= 3;
        at5 += rank >= 1 && rank <= 5;
        rr += rank ? 1.0 / static_cast<double>(rank) : 0.0;
    }
    double r(int hits) const { return n ? static_cast<double>(hits) / n : 0; }
};

}  // namespace

int main(int argc, char** argv) {
    fs::path dir = COFFER_EVAL_DIR;
    double min_recall3 = -1;
    bool verbose = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc) dir = argv[++i];
        else if (a == "--min-recall3" && i + 1 < argc) min_recall3 = std::stod(argv[++i]);
        else if (a == "--verbose") verbose = true;
        else {
            std::fprintf(stderr, "usage: coffer-eval-toolsearch [--dir DIR] [--min-recall3 X] [--verbose]\n");
            return 2;
        }
    }

    std::vector<ts::ToolText> tools;
    std::vector<std::string> server_files;
    json::array queries;
    try {
        for (auto& e : fs::directory_iterator(dir / "servers"))
            if (e.path().extension() == ".json") server_files.push_back(e.path().string());
        std::sort(server_files.begin(), server_files.end());
        for (auto& f : server_files) {
            auto doc = read_json(f).as_object();
            std::string server(doc.at("server").as_string());
            for (auto& t : doc.at("tools").as_array()) {
                auto text = ts::tool_text(t.as_object());
                text.name = server + "__" + text.name;
                tools.push_back(std::move(text));
            }
        }
        queries = read_json(dir / "queries.json").as_object().at("queries").as_array();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "coffer-eval-toolsearch: %s (dir %s)\n", e.what(), dir.string().c_str());
        return 2;
    }

    ts::Index index(tools);
    Tally all, cjk;
    std::vector<std::string> misses;
    for (auto& qv : queries) {
        auto& q = qv.as_object();
        std::string text(q.at("query").as_string());
        std::vector<std::string> expected;
        for (auto& e : q.at("expected").as_array()) expected.emplace_back(e.as_string());
        auto hits = index.query(text, 0);
        std::size_t rank = 0;
        for (std::size_t i = 0; i < hits.size() && !rank; ++i)
            if (std::find(expected.begin(), expected.end(), tools[hits[i].tool].name) != expected.end()) rank = i + 1;
        all.add(rank);
        if (has_cjk(text)) cjk.add(rank);
        if (rank != 1 || verbose) {
            std::ostringstream line;
            line << (rank == 1 ? "  ok   " : rank && rank <= 3 ? "  @" + std::to_string(rank) + "   " : "  MISS ")
                 << '"' << text << "\" expected " << expected.front() << (rank ? " at " + std::to_string(rank) : "")
                 << "; got";
            for (std::size_t i = 0; i < std::min<std::size_t>(3, hits.size()); ++i)
                line << ' ' << tools[hits[i].tool].name << " (" << static_cast<int>(hits[i].score * 100 + 0.5) / 100.0 << ")";
            misses.push_back(line.str());
        }
    }

    std::printf("tool search eval: %zu tools from %zu servers, %d queries (%d CJK)\n", tools.size(), server_files.size(),
                all.n, cjk.n);
    for (auto& m : misses) std::printf("%s\n", m.c_str());
    std::printf("recall@1  %.3f\nrecall@3  %.3f\nrecall@5  %.3f\nMRR       %.3f\n", all.r(all.at1), all.r(all.at3),
                all.r(all.at5), all.n ? all.rr / all.n : 0.0);
    if (cjk.n)
        std::printf("CJK queries: recall@1 %.3f, recall@3 %.3f, MRR %.3f\n", cjk.r(cjk.at1), cjk.r(cjk.at3), cjk.rr / cjk.n);
    if (min_recall3 >= 0 && all.r(all.at3) < min_recall3) {
        std::printf("FAIL: recall@3 %.3f is below the target %.3f\n", all.r(all.at3), min_recall3);
        return 1;
    }
    return 0;
}
