// Ranking quality of the tool search (SPEC G-24).
//
// The set next to this file: servers/*.json — tool lists captured from real MCP servers installed
// from npm (capture/capture.mjs) — and requests written in users' words, split by a hash of their
// text into queries.tune.json (what the ranker may be tuned on) and queries.heldback.json (frozen
// before any tuning; its figures are the ones reported and gated). Every tool is indexed under its
// namespaced name (<server>__<tool>) with its server's instructions, every request is run, and a
// request counts as found at k when one of its judged tools is among the first k results.
//
//   coffer-eval-toolsearch [--dir DIR] [--set heldback|tune|all] [--min-recall1 X] [--min-recall3 X]
//                          [--no-empty] [--option NAME=VALUE]... [--verbose]
//
// Before scoring, the set itself is checked (exit 2 when it fails): every judged tool exists, no
// request uses a word of a judged tool's own name (after tokenizing and stemming — requests must be
// phrased in users' words, not the tools'), no request is duplicated, and every request sits in the
// part its hash assigns it to (so nobody can move a hard request from held-back to tune).
// Exit 1 when recall@1 or recall@3 is below the given minimum, or --no-empty is given and a request
// got no answer at all. A directory with a single queries.json (legacy/) is read as one set.
#include "retrieval/embedder.hpp"
#include "toolsearch/hybrid.hpp"
#include "toolsearch/index.hpp"
#include "toolsearch/tokenize.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef COFFER_EVAL_DIR
#define COFFER_EVAL_DIR "."
#endif

namespace fs = std::filesystem;
namespace json = boost::json;
namespace ts = coffer::toolsearch;
namespace retrieval = coffer::retrieval;

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

// The split rule: FNV-1a 64 of the request's UTF-8 bytes, modulo 100, below 40 is "tune".
std::string part_of(const std::string& text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h % 100 < 40 ? "tune" : "heldback";
}

struct Tally {
    int n = 0, at1 = 0, at3 = 0, at5 = 0, empty = 0;
    double rr = 0;
    void add(std::size_t rank, bool no_answer) {  // rank 1-based; 0 = not found
        ++n;
        at1 += rank == 1;
        at3 += rank >= 1 && rank <= 3;
        at5 += rank >= 1 && rank <= 5;
        rr += rank ? 1.0 / static_cast<double>(rank) : 0.0;
        empty += no_answer;
    }
    double r(int hits) const { return n ? static_cast<double>(hits) / n : 0; }
    double mrr() const { return n ? rr / n : 0; }
};

struct Request {
    std::string text, part;
    std::vector<std::string> expected;
};

std::vector<std::pair<std::string, float*>> option_fields(ts::Options& o) {
    return {{"name_weight", &o.name_weight},         {"description_weight", &o.description_weight},
            {"parameter_weight", &o.parameter_weight}, {"schema_weight", &o.schema_weight},
            {"instructions_weight", &o.instructions_weight}, {"synonym_weight", &o.synonym_weight},
            {"derived_weight", &o.derived_weight},     {"hypernym_weight", &o.hypernym_weight},
            {"fuzzy_weight", &o.fuzzy_weight},         {"fuzzy_min_similarity", &o.fuzzy_min_similarity},
            {"phrase_weight", &o.phrase_weight},       {"phrase_words_weight", &o.phrase_words_weight},
            {"server_weight", &o.server_weight}, {"vector_weight", &o.vector_weight}, {"k1", &o.k1}};
}

std::string own_name(const std::string& namespaced) {
    auto sep = namespaced.find("__");
    return sep == std::string::npos ? namespaced : namespaced.substr(sep + 2);
}

}  // namespace

int main(int argc, char** argv) {
    fs::path dir = COFFER_EVAL_DIR;
    std::string set = "heldback";
    double min_recall1 = -1, min_recall3 = -1;
    bool verbose = false, no_empty = false;
    ts::Options options;
    std::string embeddings_url, embeddings_model;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc) dir = argv[++i];
        else if (a == "--set" && i + 1 < argc) set = argv[++i];
        else if (a == "--min-recall1" && i + 1 < argc) min_recall1 = std::stod(argv[++i]);
        else if (a == "--min-recall3" && i + 1 < argc) min_recall3 = std::stod(argv[++i]);
        else if (a == "--option" && i + 1 < argc) {
            // --option name=value: one ranking option, for weighing a change on the tune part.
            std::string kv = argv[++i];
            auto eq = kv.find('=');
            float* field = nullptr;
            std::string key = kv.substr(0, eq);
            for (auto& [name, ptr] : option_fields(options))
                if (name == key) field = ptr;
            if (!field || eq == std::string::npos) {
                std::fprintf(stderr, "coffer-eval-toolsearch: unknown option %s\n", kv.c_str());
                return 2;
            }
            *field = std::stof(kv.substr(eq + 1));
        } else if (a == "--embeddings-url" && i + 1 < argc) embeddings_url = argv[++i];
        else if (a == "--embeddings-model" && i + 1 < argc) embeddings_model = argv[++i];
        else if (a == "--no-empty") no_empty = true;
        else if (a == "--verbose") verbose = true;
        else {
            std::fprintf(stderr,
                         "usage: coffer-eval-toolsearch [--dir DIR] [--set heldback|tune|all] [--min-recall1 X] "
                         "[--min-recall3 X] [--no-empty] [--option NAME=VALUE]... [--verbose]\n"
                         "       [--embeddings-url URL --embeddings-model MODEL]  (hybrid: keyword and vectors fused)\n");
            return 2;
        }
    }
    if (set != "heldback" && set != "tune" && set != "all") {
        std::fprintf(stderr, "coffer-eval-toolsearch: --set is heldback, tune or all\n");
        return 2;
    }

    std::vector<ts::ToolText> tools;
    std::set<std::string> names;
    std::vector<std::string> server_files;
    std::vector<Request> requests;
    bool split = false;
    try {
        for (auto& e : fs::directory_iterator(dir / "servers"))
            if (e.path().extension() == ".json") server_files.push_back(e.path().string());
        std::sort(server_files.begin(), server_files.end());
        for (auto& f : server_files) {
            auto doc = read_json(f).as_object();
            std::string server(doc.at("server").as_string());
            std::string instructions;
            if (auto* v = doc.if_contains("instructions"); v && v->is_string()) instructions = v->as_string();
            for (auto& t : doc.at("tools").as_array()) {
                auto text = ts::tool_text(t.as_object());
                text.name = server + "__" + text.name;
                text.instructions = instructions;
                names.insert(text.name);
                tools.push_back(std::move(text));
            }
        }
        auto load = [&](const fs::path& p, const std::string& part) {
            json::value doc = read_json(p);
            for (auto& qv : doc.as_object().at("queries").as_array()) {
                auto& q = qv.as_object();
                Request r{std::string(q.at("query").as_string()), part, {}};
                for (auto& e : q.at("expected").as_array()) r.expected.emplace_back(e.as_string());
                requests.push_back(std::move(r));
            }
        };
        if (fs::exists(dir / "queries.heldback.json")) {
            split = true;
            load(dir / "queries.tune.json", "tune");
            load(dir / "queries.heldback.json", "heldback");
        } else {
            load(dir / "queries.json", "all");
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "coffer-eval-toolsearch: %s (dir %s)\n", e.what(), dir.string().c_str());
        return 2;
    }

    // The set's own rules.
    int problems = 0;
    std::set<std::string> seen;
    for (auto& r : requests) {
        auto complain = [&](const std::string& what) {
            std::fprintf(stderr, "set error: \"%s\": %s\n", r.text.c_str(), what.c_str());
            ++problems;
        };
        if (!seen.insert(r.text).second) complain("duplicated");
        if (r.expected.empty()) complain("no judged tool");
        if (split && part_of(r.text) != r.part) complain("belongs to " + part_of(r.text) + " by its hash");
        auto words = ts::tokenize(r.text);
        for (auto& e : r.expected) {
            if (!names.count(e)) {
                complain("judged tool " + e + " does not exist");
                continue;
            }
            if (!split) continue;  // legacy/: phrased by the tools' own words, on purpose — a regression set
            for (auto& w : ts::tokenize(own_name(e)))
                if (std::find(words.begin(), words.end(), w) != words.end())
                    complain("uses \"" + w + "\" from the name of " + e);
        }
    }
    if (problems) {
        std::fprintf(stderr, "coffer-eval-toolsearch: %d problem(s) in the set\n", problems);
        return 2;
    }

    ts::Index index(tools, options);
    // Hybrid, when an embeddings endpoint is given: the tools' vectors now, each request's below.
    std::unique_ptr<retrieval::Embedder> embedder;
    ts::ToolVectors vectors;
    if (!embeddings_url.empty()) {
        try {
            ts::HybridSettings settings{embeddings_url, embeddings_model, "", options.vector_weight};
            embedder = ts::make_embedder(settings, std::chrono::minutes(5), 3);
            vectors = ts::ToolVectors(tools, *embedder);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "coffer-eval-toolsearch: embeddings: %s\n", e.what());
            return 2;
        }
        if (vectors.empty()) {
            std::fprintf(stderr, "coffer-eval-toolsearch: the embeddings endpoint gave no usable vectors\n");
            return 2;
        }
    }
    std::vector<std::vector<float>> request_vectors;
    if (embedder) {
        std::vector<std::string> texts;
        for (auto& r : requests) texts.push_back(r.text);
        request_vectors = embedder->embed(texts);
    }
    std::map<std::string, Tally> by_part;
    Tally all, cjk;
    std::vector<std::string> lines;
    for (std::size_t q = 0; q < requests.size(); ++q) {
        auto& r = requests[q];
        bool selected = set == "all" || r.part == set || r.part == "all";
        auto hits = embedder ? ts::fuse(index.query(r.text, ts::kFusionDepth),
                                        vectors.nearest(request_vectors[q], ts::kFusionDepth), 0, options.vector_weight)
                             : index.query(r.text, 0);
        std::size_t rank = 0;
        for (std::size_t i = 0; i < hits.size() && !rank; ++i)
            if (std::find(r.expected.begin(), r.expected.end(), tools[hits[i].tool].name) != r.expected.end()) rank = i + 1;
        by_part[r.part].add(rank, hits.empty());
        if (!selected) continue;
        all.add(rank, hits.empty());
        if (has_cjk(r.text)) cjk.add(rank, hits.empty());
        if (rank != 1 || verbose) {
            std::ostringstream line;
            line << (rank == 1 ? "  ok   " : rank && rank <= 3 ? "  @" + std::to_string(rank) + "   " : "  MISS ") << '"'
                 << r.text << "\" expected " << r.expected.front() << (rank ? " at " + std::to_string(rank) : "")
                 << (hits.empty() ? "; EMPTY ANSWER" : "; got");
            for (std::size_t i = 0; i < std::min<std::size_t>(3, hits.size()); ++i)
                line << ' ' << tools[hits[i].tool].name << " (" << static_cast<int>(hits[i].score * 100 + 0.5) / 100.0 << ")";
            lines.push_back(line.str());
        }
    }

    std::printf("tool search eval: %zu tools from %zu servers; set \"%s\": %d requests (%d CJK)\n", tools.size(),
                server_files.size(), set.c_str(), all.n, cjk.n);
    for (auto& m : lines) std::printf("%s\n", m.c_str());
    std::printf("recall@1  %.3f\nrecall@3  %.3f\nrecall@5  %.3f\nMRR       %.3f\nempty     %d\n", all.r(all.at1),
                all.r(all.at3), all.r(all.at5), all.mrr(), all.empty);
    if (cjk.n)
        std::printf("CJK requests: recall@1 %.3f, recall@3 %.3f, MRR %.3f\n", cjk.r(cjk.at1), cjk.r(cjk.at3), cjk.mrr());
    if (split && set == "all")
        for (auto& [part, t] : by_part)
            std::printf("part %-8s %3d requests: recall@1 %.3f, recall@3 %.3f, MRR %.3f, empty %d\n", part.c_str(), t.n,
                        t.r(t.at1), t.r(t.at3), t.mrr(), t.empty);
    int rc = 0;
    if (min_recall1 >= 0 && all.r(all.at1) < min_recall1) {
        std::printf("FAIL: recall@1 %.3f is below the target %.3f\n", all.r(all.at1), min_recall1);
        rc = 1;
    }
    if (min_recall3 >= 0 && all.r(all.at3) < min_recall3) {
        std::printf("FAIL: recall@3 %.3f is below the target %.3f\n", all.r(all.at3), min_recall3);
        rc = 1;
    }
    if (no_empty && all.empty) {
        std::printf("FAIL: %d request(s) got an empty answer\n", all.empty);
        rc = 1;
    }
    return rc;
}
