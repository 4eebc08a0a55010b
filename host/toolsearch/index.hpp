// A field-weighted BM25 (BM25F) index over tools (SPEC G-24).
//
// Each tool has five fields — its name, its description, the names of its parameters, their
// descriptions and its server's instructions — with a
// weight and a length normalisation each; a term's frequencies in the fields are combined into one
// pseudo-frequency before BM25's saturation, so a name match counts more than a description match
// without one field drowning the others. The index is immutable: a changed catalog builds a new
// one (building is linear in the text and cheap next to fetching the lists). Queries are const and
// may run concurrently. Results are deterministic: by score, ties by name, then input position.
#pragma once

#include "toolsearch/schema_fields.hpp"
#include "toolsearch/servers.hpp"
#include "toolsearch/trigram.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace coffer::toolsearch {

struct Options {
    float k1 = 1.2f;
    // Fields: name, description, parameter names, parameter descriptions, server instructions.
    float name_weight = 3.0f, description_weight = 1.0f, parameter_weight = 0.5f, schema_weight = 0.3f,
          instructions_weight = 0.1f;
    float name_b = 0.3f, description_b = 0.5f, parameter_b = 0.5f, schema_b = 0.5f, instructions_b = 0.3f;
    // Query expansion from WordNet (lexicon.hpp), by relation; a lemma of an irregular form counts fully.
    float synonym_weight = 0.3f, derived_weight = 0.6f, hypernym_weight = 0.3f;
    // A phrase WordNet knows as one lemma ("get rid of", "throw away"): its relations count at
    // phrase_weight times the relation's weight, and its own words at phrase_words_weight (what
    // "get" says alone is not what "get rid of" says).
    float phrase_weight = 1.0f, phrase_words_weight = 1.0f;
    // Relaxed matching (trigram.hpp) for query words the index does not hold: index words at least
    // this alike count at fuzzy_weight times their similarity.
    float fuzzy_weight = 0.5f, fuzzy_min_similarity = 0.6f;
    // When nothing else matched, the last resort: words this alike.
    float fallback_min_similarity = 0.4f;
    // A request that names a server ("… in mongo", "my Notion workspace") — a word equal to a word
    // of the server's name, or sharing a prefix of at least four letters with it — lifts that
    // server's matching tools by this fraction of the best score (servers.hpp).
    float server_weight = 0.4f;
    // Hybrid search (hybrid.hpp): how much the vector list counts in the fusion, against 1 for
    // the keyword list.
    float vector_weight = 1.0f;
};

struct Hit {
    std::size_t tool = 0;  // position in the list the index was built from
    double score = 0;
};

// Orders `hits` best first by `better` and keeps the first `limit` (0: all).
template <class Better>
void keep_best(std::vector<Hit>& hits, std::size_t limit, Better better) {
    if (limit && limit < hits.size()) {
        std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(limit), hits.end(), better);
        hits.resize(limit);
    } else {
        std::sort(hits.begin(), hits.end(), better);
    }
}

class Index {
public:
    Index() = default;
    explicit Index(const std::vector<ToolText>& tools, const Options& options = {});

    // The best `limit` tools for `text` (limit 0: every tool that matches), best first. The query's
    // words count fully; glossary and WordNet expansions and relaxed (trigram) matches of words the
    // index lacks count less; when none of that matches anything, looser trigram matches are
    // tried before giving up. Tools that share nothing with the query are not returned.
    std::vector<Hit> query(std::string_view text, std::size_t limit) const;

    std::size_t size() const { return rank_.size(); }
    std::size_t terms() const { return idf_.size(); }

private:
    void lift_named_servers(const std::vector<std::string>& terms, std::vector<Hit>& hits) const;

    Options options_;
    std::unordered_map<std::string, std::uint32_t> dictionary_;
    TrigramIndex grams_;                     // the dictionary's words, for relaxed matching
    std::vector<float> idf_;                 // by term
    std::vector<std::uint32_t> offsets_;     // by term: its postings are [offsets_[t], offsets_[t+1])
    std::vector<std::uint32_t> docs_;        // posting → tool
    std::vector<float> contributions_;       // posting → saturated, length-normalised frequency
    std::vector<std::uint32_t> rank_;        // tool → its position in name order (ties)
    Servers servers_;                        // the servers the tools belong to, and their names' words
};

}  // namespace coffer::toolsearch
