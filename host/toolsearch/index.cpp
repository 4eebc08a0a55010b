#include "toolsearch/index.hpp"

#include "toolsearch/expand.hpp"
#include "toolsearch/lexicon.hpp"
#include "toolsearch/tokenize.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace coffer::toolsearch {

namespace {

constexpr int kFields = 5;  // name, description, parameter names, parameter descriptions, instructions

struct Occurrence {
    std::uint32_t term;
    std::uint32_t field;
    bool operator<(const Occurrence& o) const { return term != o.term ? term < o.term : field < o.field; }
};

struct Posting {
    std::uint32_t doc;
    std::array<float, kFields> tf;
};

// Query weights by term id. A term keeps the highest weight any source gives it; the query's own
// terms are added up per occurrence and never lowered by an expansion.
class Weights {
public:
    void own(std::uint32_t id, float weight = 1.0f) {
        for (auto& [t, w, is_own] : terms_)
            if (t == id) {
                w = is_own ? w + weight : std::max(w, weight);
                is_own = true;
                return;
            }
        terms_.push_back({id, weight, true});
    }
    void add(std::uint32_t id, float weight) {
        if (!(weight > 0.0f)) return;
        for (auto& [t, w, is_own] : terms_)
            if (t == id) {
                if (!is_own) w = std::max(w, weight);
                return;
            }
        terms_.push_back({id, weight, false});
    }
    bool empty() const { return terms_.empty(); }
    // In term-id order: a fixed order of additions gives identical scores every time.
    std::vector<std::pair<std::uint32_t, float>> sorted() const {
        std::vector<std::pair<std::uint32_t, float>> out;
        for (auto& [t, w, is_own] : terms_) out.emplace_back(t, w);
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    struct Term {
        std::uint32_t id;
        float weight;
        bool own;
    };
    std::vector<Term> terms_;
};

}  // namespace

Index::Index(const std::vector<ToolText>& tools, const Options& options) : options_(options) {
    const std::size_t n = tools.size();
    std::vector<std::vector<Posting>> postings;
    std::vector<std::array<float, kFields>> lengths(n);
    std::array<double, kFields> total{};
    std::vector<std::string> words;
    std::vector<Occurrence> occ;
    std::unordered_map<std::string, std::vector<std::string>> instruction_terms;

    auto intern = [&](std::string& w) {
        auto [it, added] = dictionary_.try_emplace(std::move(w), static_cast<std::uint32_t>(postings.size()));
        if (added) {
            grams_.add(it->first, it->second);
            postings.emplace_back();
        }
        return it->second;
    };

    for (std::size_t d = 0; d < n; ++d) {
        servers_.add_tool(tools[d].name);
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
        add_field(3, tools[d].schema_text);
        // A server's instructions are the same text for each of its tools: tokenized once.
        {
            auto [it, added] = instruction_terms.try_emplace(tools[d].instructions);
            if (added) tokenize(tools[d].instructions, it->second);
            lengths[d][4] = static_cast<float>(it->second.size());
            total[4] += static_cast<double>(it->second.size());
            for (auto w : it->second) occ.push_back({intern(w), 4});
        }
        std::sort(occ.begin(), occ.end());
        for (std::size_t i = 0; i < occ.size();) {
            Posting p{static_cast<std::uint32_t>(d), {}};
            std::uint32_t term = occ[i].term;
            for (; i < occ.size() && occ[i].term == term; ++i) p.tf[occ[i].field] += 1;
            postings[term].push_back(p);
        }
    }

    const std::array<float, kFields> weight{options.name_weight, options.description_weight, options.parameter_weight,
                                            options.schema_weight, options.instructions_weight};
    const std::array<float, kFields> b{options.name_b, options.description_b, options.parameter_b, options.schema_b,
                                       options.instructions_b};
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
    (void)related("");  // index the lexicon's lines now, while building, rather than in the first query
}

void Index::lift_named_servers(const std::vector<std::string>& terms, std::vector<Hit>& hits) const {
    if (!(options_.server_weight > 0.0f) || hits.empty() || servers_.count() < 2) return;
    auto named = servers_.named(terms);
    if (std::find(named.begin(), named.end(), true) == named.end()) return;
    double top = 0;
    for (auto& h : hits) top = std::max(top, h.score);
    for (auto& h : hits) {
        auto s = servers_.server_of(h.tool);
        if (s != Servers::kNone && named[s]) h.score += options_.server_weight * top;
    }
}

std::vector<Hit> Index::query(std::string_view text, std::size_t limit) const {
    std::vector<Hit> hits;
    if (rank_.empty()) return hits;
    auto terms = tokenize(text);
    auto find = [&](std::string_view t) -> const std::uint32_t* {
        auto it = dictionary_.find(std::string(t));
        return it == dictionary_.end() ? nullptr : &it->second;
    };

    auto relation_weight = [&](Relation r) {
        switch (r) {
            case Relation::lemma: return 1.0f;
            case Relation::synonym: return options_.synonym_weight;
            case Relation::derived: return options_.derived_weight;
            case Relation::hypernym: return options_.hypernym_weight;
        }
        return 0.0f;
    };
    // WordNet's phrases ("get rid of"): their words, one occurrence each, count at
    // phrase_words_weight on their own; what the phrase relates to is added below.
    std::vector<Phrase> found;
    std::vector<std::string> phrase_words;
    if (options_.phrase_weight > 0.0f) {
        found = phrases(text);
        for (auto& p : found) phrase_words.insert(phrase_words.end(), p.words.begin(), p.words.end());
    }

    Weights weights;
    for (auto& t : terms) {
        auto* id = find(t);
        if (!id) continue;
        auto in_phrase = std::find(phrase_words.begin(), phrase_words.end(), t);
        if (in_phrase == phrase_words.end()) {
            weights.own(*id);
            continue;
        }
        phrase_words.erase(in_phrase);
        weights.own(*id, options_.phrase_words_weight);
    }
    for (auto& p : found)
        for (auto& r : p.related)
            if (auto* id = find(r.term)) weights.add(*id, options_.phrase_weight * relation_weight(r.relation));
    for (auto& e : expand(text, terms))
        if (auto* id = find(e.term)) weights.add(*id, e.weight);
    // WordNet: lemmas of irregular forms, synonyms, derived forms, hypernyms.
    std::vector<const std::string*> unmatched;  // unknown, and nothing WordNet relates to it is known either
    for (auto& t : terms) {
        bool known = find(t) != nullptr;
        for (auto& r : related(t))
            if (auto* id = find(r.term)) {
                weights.add(*id, relation_weight(r.relation));
                known = true;
            }
        if (!known) unmatched.push_back(&t);
    }
    // Relaxed matching for what is left.
    auto relax = [&](float min_similarity, float weight) {
        for (auto* t : unmatched)
            for (auto& m : grams_.similar(*t, min_similarity, 3)) weights.add(m.term, weight * m.similarity);
    };
    relax(options_.fuzzy_min_similarity, options_.fuzzy_weight);
    if (weights.empty()) {
        // The last resort: every query word, looser.
        unmatched.clear();
        for (auto& t : terms) unmatched.push_back(&t);
        relax(options_.fallback_min_similarity, options_.fuzzy_weight);
    }
    if (weights.empty()) return hits;

    std::vector<float> acc(rank_.size(), 0.0f);
    std::vector<std::uint32_t> touched;
    for (auto& [id, w] : weights.sorted()) {
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
    lift_named_servers(terms, hits);
    auto better = [&](const Hit& a, const Hit& c) {
        if (a.score != c.score) return a.score > c.score;
        return rank_[a.tool] < rank_[c.tool];
    };
    keep_best(hits, limit, better);
    return hits;
}

}  // namespace coffer::toolsearch
