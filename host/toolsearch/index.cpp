#include "toolsearch/index.hpp"

#include "toolsearch/expand.hpp"
#include "toolsearch/tokenize.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace coffer::toolsearch {

namespace {

constexpr int kFields = 3;  // name, description, parameters

struct Occurrence {
    std::uint32_t term;
    std::uint32_t field;
    bool operator<(const Occurrence& o) const { return term != o.term ? term < o.term : field < o.field; }
};

struct Posting {
    std::uint32_t doc;
    std::array<float, kFields> tf;
};

}  // namespace

Index::Index(const std::vector<ToolText>& tools, const Options& options) {
    const std::size_t n = tools.size();
    std::vector<std::vector<Posting>> postings;
    std::vector<std::array<float, kFields>> lengths(n);
    std::array<double, kFields> total{};
    std::vector<std::string> words;
    std::vector<Occurrence> occ;

    auto intern = [&](std::string& w) {
        auto [it, added] = dictionary_.try_emplace(std::move(w), static_cast<std::uint32_t>(postings.size()));
        if (added) postings.emplace_back();
        return it->second;
    };

    for (std::size_t d = 0; d < n; ++d) {
        occ.clear();
        auto add_field = [&](std::uint32_t field, auto&& texts) {
            words.clear();
            for (const std::string& t : texts) tokenize(t, words);
            lengths[d][field] = static_cast<float>(words.size());
            total[field] += static_cast<double>(words.size());
            for (auto& w : words) occ.push_back({intern(w), field});
        };
        add_field(0, std::array<std::string, 1>{tools[d].name});
        add_field(1, std::array<std::string, 1>{tools[d].description});
        add_field(2, tools[d].parameters);
        std::sort(occ.begin(), occ.end());
        for (std::size_t i = 0; i < occ.size();) {
            Posting p{static_cast<std::uint32_t>(d), {}};
            std::uint32_t term = occ[i].term;
            for (; i < occ.size() && occ[i].term == term; ++i) p.tf[occ[i].field] += 1;
            postings[term].push_back(p);
        }
    }

    const std::array<float, kFields> weight{options.name_weight, options.description_weight, options.parameter_weight};
    const std::array<float, kFields> b{options.name_b, options.description_b, options.parameter_b};
    std::array<float, kFields> avg{};
    for (int f = 0; f < kFields; ++f) avg[f] = n && total[f] > 0 ? static_cast<float>(total[f] / static_cast<double>(n)) : 1.0f;

    idf_.resize(postings.size());
    offsets_.resize(postings.size() + 1);
    std::size_t count = 0;
    for (auto& p : postings) count += p.size();
    docs_.reserve(count);
    contributions_.reserve(count);
    for (std::size_t t = 0; t < postings.size(); ++t) {
        offsets_[t] = static_cast<std::uint32_t>(docs_.size());
        auto df = static_cast<double>(postings[t].size());
        idf_[t] = static_cast<float>(std::log(1.0 + (static_cast<double>(n) - df + 0.5) / (df + 0.5)));
        for (auto& p : postings[t]) {
            float pseudo = 0;
            for (int f = 0; f < kFields; ++f) {
                if (p.tf[f] == 0) continue;
                float norm = 1.0f - b[f] + b[f] * lengths[p.doc][f] / avg[f];
                pseudo += weight[f] * p.tf[f] / norm;
            }
            docs_.push_back(p.doc);
            contributions_.push_back(pseudo / (options.k1 + pseudo));
        }
    }
    offsets_[postings.size()] = static_cast<std::uint32_t>(docs_.size());

    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t c) { return tools[a].name < tools[c].name; });
    rank_.resize(n);
    for (std::size_t i = 0; i < n; ++i) rank_[order[i]] = static_cast<std::uint32_t>(i);
}

std::vector<Hit> Index::query(std::string_view text, std::size_t limit) const {
    std::vector<Hit> hits;
    if (rank_.empty()) return hits;
    auto terms = tokenize(text);
    // Query weights by term id: each occurrence of a query term counts once; an expansion adds its
    // weight only for a term the query does not have itself.
    std::vector<std::pair<std::uint32_t, float>> weights;
    auto find = [&](const std::string& t) -> const std::uint32_t* {
        auto it = dictionary_.find(t);
        return it == dictionary_.end() ? nullptr : &it->second;
    };
    for (auto& t : terms)
        if (auto* id = find(t)) weights.emplace_back(*id, 1.0f);
    std::sort(weights.begin(), weights.end());
    std::vector<std::pair<std::uint32_t, float>> merged;
    for (auto& [id, w] : weights) {
        if (!merged.empty() && merged.back().first == id) merged.back().second += w;
        else merged.emplace_back(id, w);
    }
    std::size_t originals = merged.size();
    for (auto& e : expand(text, terms)) {
        auto* id = find(e.term);
        if (!id) continue;
        auto own_end = merged.begin() + static_cast<std::ptrdiff_t>(originals);
        auto own = std::lower_bound(merged.begin(), own_end, std::make_pair(*id, 0.0f),
                                    [](auto& a, auto& c) { return a.first < c.first; });
        if (own != own_end && own->first == *id) continue;
        bool seen = false;
        for (auto k = originals; k < merged.size(); ++k)
            if (merged[k].first == *id) {
                merged[k].second = std::max(merged[k].second, e.weight);
                seen = true;
            }
        if (!seen) merged.emplace_back(*id, e.weight);
    }
    if (merged.empty()) return hits;
    std::sort(merged.begin(), merged.end());  // a fixed order of additions: identical scores every time

    std::vector<float> acc(rank_.size(), 0.0f);
    std::vector<std::uint32_t> touched;
    for (auto& [id, w] : merged) {
        float qw = w * idf_[id];
        for (auto k = offsets_[id]; k < offsets_[id + 1]; ++k) {
            float add = qw * contributions_[k];
            if (!(add > 0.0f)) continue;
            auto d = docs_[k];
            if (acc[d] == 0.0f) touched.push_back(d);
            acc[d] += add;
        }
    }
    hits.reserve(touched.size());
    for (auto d : touched)
        if (acc[d] > 0.0f) hits.push_back({d, static_cast<double>(acc[d])});
    auto better = [&](const Hit& a, const Hit& c) {
        if (a.score != c.score) return a.score > c.score;
        return rank_[a.tool] < rank_[c.tool];
    };
    if (limit && limit < hits.size()) {
        std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(limit), hits.end(), better);
        hits.resize(limit);
    } else {
        std::sort(hits.begin(), hits.end(), better);
    }
    return hits;
}

}  // namespace coffer::toolsearch
