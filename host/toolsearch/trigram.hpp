// Relaxed matching of words by character trigrams: for a query word the index does not hold
// (a typo, another inflection the stemmer leaves apart, a compound: "spidering", "screnshot",
// "filesystem"), the index words that share most of its trigrams. Words are padded ("$ab",
// …, "yz$") so that short words and word edges count; similarity is Dice's coefficient over the
// sets of trigrams. Only plain lower-case ASCII words of four letters or more take part: CJK text
// is already cut into bigrams, and short words have too few trigrams to compare.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace coffer::toolsearch {

class TrigramIndex {
public:
    struct Match {
        std::uint32_t term;  // the id the caller gave the word
        float similarity;    // Dice coefficient, (0, 1]
    };

    // Adds `word` under `term` (ignored when not eligible).
    void add(std::string_view word, std::uint32_t term);
    // Words at least `min_similarity` alike, best first (ties by id), at most `limit`.
    std::vector<Match> similar(std::string_view word, float min_similarity, std::size_t limit) const;

    static bool eligible(std::string_view word);

private:
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> postings_;  // trigram → word slots
    std::vector<std::pair<std::uint32_t, std::uint16_t>> words_;              // slot → {term, trigrams}
};

}  // namespace coffer::toolsearch
