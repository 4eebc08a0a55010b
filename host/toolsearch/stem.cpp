#include "toolsearch/stem.hpp"

#include <algorithm>
#include <array>

namespace coffer::toolsearch {

namespace {

// Sorted, for binary search.
constexpr std::array<std::string_view, 94> kStopwords = {
    "a",      "about", "after",  "again", "all",    "also",  "am",    "an",    "and",   "any",    "are",   "as",
    "at",     "be",    "been",   "being", "both",   "but",   "by",    "can",   "could", "did",    "do",    "does",
    "doing",  "each",  "for",    "from",  "had",    "has",   "have",  "having", "he",   "her",    "here",  "him",
    "his",    "how",   "i",      "if",    "in",     "into",  "is",    "it",    "its",   "itself", "just",  "let",
    "lets",   "me",    "might",  "more",  "most",   "must",  "my",    "need",  "needs", "of",     "on",    "onto",
    "or",     "our",   "please", "shall", "she",    "should", "so",   "some",  "than",  "that",   "the",   "their",
    "them",   "then",  "there",  "these", "they",   "this",  "those", "to",    "via",   "want",   "was",   "we",
    "were",   "what",  "when",   "which", "who",    "whose", "will",  "with",  "would", "you"};

// -ing / -ed words whose "stem" would be a different word (or nonsense).
constexpr std::array<std::string_view, 31> kKeep = {
    "anything", "bed",      "bring",  "ceiling",   "during",  "embed",  "evening", "everything", "feed",  "hundred",
    "king",     "morning",  "need",   "nothing",   "ping",    "proceed", "red",    "ring",       "seed",  "shed",
    "sibling",  "sing",     "something", "speed",  "spread",  "spring",  "string", "succeed", "thing",      "thread", "wing"};

bool has_suffix(std::string_view w, std::string_view s) {
    return w.size() >= s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0;
}

bool vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

bool plain_ascii_word(std::string_view w) {
    return std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// "runn" → "run", "committ" → "commit"; "install", "pass", "add" stay.
void undouble(std::string& w) {
    std::size_t n = w.size();
    if (n < 4) return;
    char c = w[n - 1];
    if (c != w[n - 2] || vowel(c) || c == 'l' || c == 's' || c == 'z' || c == 'f') return;
    w.pop_back();
}

}  // namespace

bool is_stopword(std::string_view w) noexcept {
    return std::binary_search(kStopwords.begin(), kStopwords.end(), w);
}

std::string stem(std::string_view word) {
    std::string w(word);
    if (w.size() <= 3 || !plain_ascii_word(w)) return w;
    if (std::binary_search(kKeep.begin(), kKeep.end(), w)) return w;
    // Plurals (and third person singular).
    if (has_suffix(w, "ies") && w.size() > 4) {
        w.resize(w.size() - 3);
        w += 'y';
    } else if (has_suffix(w, "sses") || has_suffix(w, "shes") || has_suffix(w, "ches") || has_suffix(w, "xes") ||
               has_suffix(w, "zes")) {
        w.resize(w.size() - 2);
    } else if (has_suffix(w, "ses") && w.size() > 5) {
        w.resize(w.size() - 2);  // "databases" → "databas", as "database" → "databas" below
    } else if (has_suffix(w, "s") && !has_suffix(w, "ss") && !has_suffix(w, "us") && !has_suffix(w, "is") &&
               w.size() > 3) {
        w.pop_back();
    }
    if (std::binary_search(kKeep.begin(), kKeep.end(), w)) return w;
    // -ing, -ed: only when at least three letters remain.
    if (has_suffix(w, "ing") && w.size() >= 6) {
        w.resize(w.size() - 3);
        undouble(w);
    } else if (has_suffix(w, "ied") && w.size() >= 5) {
        w.resize(w.size() - 3);
        w += 'y';
    } else if (has_suffix(w, "ed") && !has_suffix(w, "eed") && w.size() >= 5) {
        w.resize(w.size() - 2);
        undouble(w);
    }
    // A final silent -e: "create" and "creat(ing)" meet.
    if (w.size() >= 4 && w.back() == 'e' && !has_suffix(w, "ee")) w.pop_back();
    return w;
}

bool is_cjk_particle(char32_t c) noexcept {
    switch (c) {
        case U'的': case U'了': case U'吗': case U'吧': case U'呢': case U'啊': case U'嘛': case U'我':
        case U'你': case U'请': case U'帮': case U'么':
        case U'の': case U'を': case U'に': case U'は': case U'が': case U'で': case U'と': case U'も':
        case U'て': case U'す': case U'る': case U'た': case U'い': case U'か':
            return true;
        default:
            return false;
    }
}

bool is_cjk_filler(char32_t a, char32_t b) noexcept {
    static constexpr char32_t kFillers[][2] = {{U'一', U'下'}, {U'一', U'个'}, {U'一', U'些'}, {U'如', U'何'},
                                               {U'怎', U'么'}, {U'可', U'以'}, {U'能', U'否'}, {U'哪', U'些'},
                                               {U'什', U'么'}, {U'这', U'个'}, {U'那', U'个'}, {U'需', U'要'},
                                               {U'想', U'要'}, {U'给', U'我'}, {U'现', U'在'}};
    for (auto& f : kFillers)
        if (f[0] == a && f[1] == b) return true;
    return false;
}

}  // namespace coffer::toolsearch
