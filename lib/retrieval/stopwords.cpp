// The English stop-word list (see stopwords.hpp): function words, pronouns, auxiliaries, the
// question words and the verbs people open a request with ("find", "show me"). Short enough that
// a linear scan is the fastest lookup.
#include "retrieval/stopwords.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace coffer::retrieval {
namespace {

constexpr std::array<std::string_view, 128> kWords = {
    "a",      "about",   "above", "after",   "again",  "all",     "am",      "an",     "and",    "any",
    "are",    "as",      "at",    "be",      "been",   "before",  "being",   "below",  "between", "both",
    "but",    "by",      "can",   "could",   "did",    "do",      "does",    "doing",  "don't",  "down",
    "during", "each",    "few",   "for",     "from",   "further", "had",     "has",    "have",   "having",
    "he",     "her",     "here",  "hers",    "him",    "his",     "how",     "i",      "if",     "in",
    "into",   "is",      "it",    "it's",    "its",    "just",    "me",      "more",   "most",   "my",
    "no",     "nor",     "not",   "now",     "of",     "off",     "on",      "once",   "only",   "or",
    "other",  "our",     "ours",  "out",     "over",   "own",     "same",    "she",    "should", "so",
    "some",   "such",    "than",  "that",    "the",    "their",   "them",    "then",   "there",  "these",
    "they",   "this",    "those", "through", "to",     "too",     "under",   "until",  "up",     "us",
    "very",   "was",     "we",    "were",    "what",   "when",    "where",   "which",  "while",  "who",
    "whom",   "why",     "will",  "with",    "would",  "you",     "your",    "yours",  "can't",  "i'm",
    "let",    "tell",    "show",  "find",    "get",    "want",    "need",    "please",
};

}  // namespace

bool is_stop_word(std::string_view word) noexcept {
    if (word.size() > 16) return false;
    std::string lower(word);
    for (char& c : lower)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return std::find(kWords.begin(), kWords.end(), std::string_view(lower)) != kWords.end();
}

}  // namespace coffer::retrieval
