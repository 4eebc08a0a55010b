#include "toolsearch/trigram.hpp"

#include <algorithm>

namespace coffer::toolsearch {

namespace {

std::uint32_t code(char a, char b, char c) {
    auto v = [](char ch) { return static_cast<std::uint32_t>(static_cast<unsigned char>(ch)); };
    return v(a) << 16 | v(b) << 8 | v(c);
}

std::vector<std::uint32_t> grams(std::string_view w) {
    std::string p = "$" + std::string(w) + "$";
    std::vector<std::uint32_t> g;
    for (std::size_t i = 0; i + 3 <= p.size(); ++i) g.push_back(code(p[i], p[i + 1], p[i + 2]));
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
    return g;
}

}  // namespace

bool TrigramIndex::eligible(std::string_view w) {
    return w.size() >= 4 && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

void TrigramIndex::add(std::string_view word, std::uint32_t term) {
    if (!eligible(word)) return;
    auto g = grams(word);
    auto slot = static_cast<std::uint32_t>(words_.size());
    words_.emplace_back(term, static_cast<std::uint16_t>(std::min<std::size_t>(g.size(), 0xFFFF)));
    for (auto t : g) postings_[t].push_back(slot);
}

std::vector<TrigramIndex::Match> TrigramIndex::similar(std::string_view word, float min_similarity,
                                                       std::size_t limit) const {
    std::vector<Match> out;
    if (!eligible(word) || words_.empty()) return out;
    auto g = grams(word);
    std::unordered_map<std::uint32_t, std::uint16_t> shared;
    for (auto t : g)
        if (auto it = postings_.find(t); it != postings_.end())
            for (auto slot : it->second) ++shared[slot];
    for (auto& [slot, n] : shared) {
        auto [term, total] = words_[slot];
        float dice = 2.0f * n / static_cast<float>(g.size() + total);
        if (dice >= min_similarity) out.push_back({term, dice});
    }
    std::sort(out.begin(), out.end(), [](const Match& a, const Match& b) {
        return a.similarity != b.similarity ? a.similarity > b.similarity : a.term < b.term;
    });
    if (out.size() > limit) out.resize(limit);
    return out;
}

}  // namespace coffer::toolsearch
