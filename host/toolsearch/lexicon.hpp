// English lexical relations for query expansion, from WordNet: generated at build time by
// lexicon_gen.cpp from Debian's wordnet-base (nothing of WordNet is in the repository; a build
// without WordNet gets an empty table and searches without it).
//
// related(term) gives, for a stemmed query word, what WordNet relates to it — the lemma of an
// irregular form (ran → run), synonyms, derivationally related forms and one level of hypernyms —
// as stems, each with its relation, closest relation first. The table is one sorted string in
// the binary; the first lookup indexes its lines (about a millisecond), and it is shared after.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::toolsearch {

enum class Relation { lemma, synonym, derived, hypernym };

struct Related {
    std::string_view term;  // points into the table: valid for the life of the process
    Relation relation;
};

// Empty for a word WordNet does not know (and for every word when the build had no WordNet).
std::vector<Related> related(std::string_view stemmed_term);

// A phrase of two or three words that WordNet knows as one lemma ("get rid of", "throw away",
// "wipe out"), found in a request's text: what it relates to, and the stems of its words.
struct Phrase {
    std::vector<std::string> words;
    std::vector<Related> related;
};

// The phrases of `text` (English words, any case), longest first at each place, not overlapping.
std::vector<Phrase> phrases(std::string_view text);

// Where the table came from ("" when the build had none) and how many stems it holds.
std::string_view lexicon_source();
std::size_t lexicon_size();

}  // namespace coffer::toolsearch
