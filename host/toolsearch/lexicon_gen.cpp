// Build-time generator of the tool search's lexicon (lexicon.hpp) from WordNet 3.0 as Debian's
// wordnet-base installs it (/usr/share/wordnet). Nothing of WordNet is committed: the build reads
// the installed data and writes a C++ source holding one string, compiled into coffer_toolsearch.
//
//   coffer-toolsearch-lexicon-gen WORDNET_DIR OUT.cpp
//
// What it keeps, for every single-word lemma (letters only, three or more) of the noun, verb and
// adjective indexes, in its most frequent senses (WordNet orders senses by their frequency in its
// sense-tagged corpus; at most kMaxSenses, and only the first for a word that corpus never saw):
//   S  synonyms — the other single-word lemmas of the same synset;
//   H  hypernyms — the single-word lemmas of the synsets one level up (nouns and verbs);
//   D  derivationally related forms — the word a "+" pointer of this very lemma leads to
//      (deletion → delete, creation → create);
// and from the exception lists (verb.exc, noun.exc, adj.exc) irregular forms with their lemma
// (ran → run, children → child), which take their lemma's relations. Lemmas of two or three
// words ("get_rid_of", "throw_away", "wipe_out"; usable_phrase) get the same relations under a
// key of their words' stems joined by spaces ("get rid of"); what they relate to is single words.
// Everything is keyed and valued by the search's own stems (stem.hpp): one line per stem, "stem
// TAB lemmas TAB synonyms TAB hypernyms TAB derived", words separated by spaces, lines sorted by
// stem.
// When WORDNET_DIR does not hold WordNet, the output holds an empty table and the search simply
// works without it (the build says so).
#include "toolsearch/stem.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr std::size_t kMaxSenses = 3;

struct Synset {
    std::vector<std::string> words;
    struct Pointer {
        std::string symbol;
        std::string offset;
        char pos;
        int source, target;  // word numbers, 0 = the whole synset
    };
    std::vector<Pointer> pointers;
};

bool usable(const std::string& w) {
    if (w.size() < 3) return false;
    return std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// "get_rid_of", "throw_away": two or three words of letters, each of two or more.
bool usable_phrase(const std::string& w) {
    std::size_t parts = 1, len = 0;
    for (char c : w) {
        if (c == '_') {
            if (len < 2) return false;
            ++parts;
            len = 0;
        } else if (c >= 'a' && c <= 'z') {
            ++len;
        } else {
            return false;
        }
    }
    return parts >= 2 && parts <= 3 && len >= 2;
}

// A phrase's key: each word by the search's own stem, joined by spaces ("getting rid of" and
// "get rid of" meet on "get rid of").
std::string phrase_key(const std::string& phrase) {
    std::string key, word;
    std::istringstream in(phrase);
    while (std::getline(in, word, '_')) {
        if (!key.empty()) key += ' ';
        key += coffer::toolsearch::stem(word);
    }
    return key;
}

// "dog", "Dog", "large(a)" → "dog", "dog", "large"; a multi-word lemma keeps its underscores.
std::string clean(std::string w) {
    if (auto p = w.find('('); p != std::string::npos) w.resize(p);
    for (auto& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return w;
}

std::map<std::string, Synset> read_data(const std::string& path) {
    std::map<std::string, Synset> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == ' ') continue;  // the licence header lines start with spaces
        std::istringstream s(line.substr(0, line.find(" | ")));
        std::string offset, lexfile, type, count_hex;
        s >> offset >> lexfile >> type >> count_hex;
        Synset syn;
        int words = std::stoi(count_hex, nullptr, 16);
        for (int i = 0; i < words; ++i) {
            std::string w, lexid;
            s >> w >> lexid;
            syn.words.push_back(clean(w));
        }
        int pointers = 0;
        s >> pointers;
        for (int i = 0; i < pointers; ++i) {
            Synset::Pointer p;
            std::string pos, st;
            s >> p.symbol >> p.offset >> pos >> st;
            p.pos = pos.empty() ? 'n' : pos[0];
            p.source = st.size() == 4 ? std::stoi(st.substr(0, 2), nullptr, 16) : 0;
            p.target = st.size() == 4 ? std::stoi(st.substr(2, 2), nullptr, 16) : 0;
            syn.pointers.push_back(std::move(p));
        }
        out.emplace(offset, std::move(syn));
    }
    return out;
}

char file_pos(char pos) { return pos == 's' ? 'a' : pos; }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: coffer-toolsearch-lexicon-gen WORDNET_DIR OUT.cpp\n");
        return 2;
    }
    std::string dir = argv[1];
    const std::pair<char, const char*> kinds[] = {{'n', "noun"}, {'v', "verb"}, {'a', "adj"}};

    std::map<char, std::map<std::string, Synset>> data;
    for (auto& [pos, name] : kinds) data[pos] = read_data(dir + "/data." + name);

    struct Entry {
        std::set<std::string> syn, hyp, der;
        std::string lemma;    // for exception lines
        bool phrase = false;  // keyed by phrase_key(): already stemmed
    };
    std::map<std::string, Entry> table;
    std::size_t lemmas = 0;
    for (auto& [pos, name] : kinds) {
        std::ifstream in(dir + "/index." + name);
        std::string line;
        auto& synsets = data[pos];
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == ' ') continue;
            std::istringstream s(line);
            std::string lemma, p;
            int synset_cnt = 0, p_cnt = 0, sense_cnt = 0, tagged = 0;
            s >> lemma >> p >> synset_cnt >> p_cnt;
            for (int i = 0; i < p_cnt; ++i) s >> p;
            s >> sense_cnt >> tagged;
            const bool phrase = usable_phrase(lemma);
            if (!usable(lemma) && !phrase) continue;
            // Senses in frequency order; a word absent from the tagged corpus keeps only its first.
            std::size_t senses = tagged > 0 ? kMaxSenses : 1;
            ++lemmas;
            auto& e = table[phrase ? phrase_key(lemma) : lemma];
            std::string offset;
            for (std::size_t k = 0; k < senses && k < static_cast<std::size_t>(synset_cnt) && s >> offset; ++k) {
                auto it = synsets.find(offset);
                if (it == synsets.end()) continue;
                const Synset& syn = it->second;
                int self = 0;
                for (std::size_t w = 0; w < syn.words.size(); ++w) {
                    if (syn.words[w] == lemma) self = static_cast<int>(w) + 1;
                    else if (usable(syn.words[w])) e.syn.insert(syn.words[w]);
                }
                for (auto& ptr : syn.pointers) {
                    auto target_it = data[file_pos(ptr.pos)].find(ptr.offset);
                    if (target_it == data[file_pos(ptr.pos)].end()) continue;
                    const auto& target = target_it->second.words;
                    if ((ptr.symbol == "@" || ptr.symbol == "@i") && pos != 'a') {
                        for (auto& w : target)
                            if (usable(w)) e.hyp.insert(w);
                    } else if (ptr.symbol == "+" && ptr.source == self && ptr.target >= 1 &&
                               static_cast<std::size_t>(ptr.target) <= target.size()) {
                        const auto& w = target[static_cast<std::size_t>(ptr.target) - 1];
                        if (usable(w)) e.der.insert(w);
                    }
                }
            }
            e.syn.erase(lemma);
            e.hyp.erase(lemma);
            e.der.erase(lemma);
            if (phrase) e.phrase = true;
        }
    }
    for (auto& [pos, name] : kinds) {
        std::ifstream in(dir + "/" + name + ".exc");
        std::string form, lemma;
        while (in >> form >> lemma) {
            std::string rest;
            std::getline(in, rest);
            if (form != lemma && usable(form) && usable(lemma) && !table.count(form)) table[form].lemma = lemma;
        }
    }

    // Keyed and valued by the search's own stems (stem.cpp is compiled into this generator), merged
    // per stem, so the runtime only looks a line up. Irregular forms carry their lemma's relations.
    struct Stemmed {
        std::set<std::string> lemma, syn, hyp, der;
    };
    std::map<std::string, Stemmed> stemmed;
    auto put = [](std::set<std::string>& to, const std::set<std::string>& words, const std::string& key) {
        for (auto& w : words)
            if (auto s = coffer::toolsearch::stem(w); s != key) to.insert(s);
    };
    for (auto& [word, e] : table) {
        std::string key = e.phrase ? word : coffer::toolsearch::stem(word);
        auto& out = stemmed[key];
        const Entry* source = &e;
        if (!e.lemma.empty()) {
            if (auto s = coffer::toolsearch::stem(e.lemma); s != key) out.lemma.insert(s);
            auto it = table.find(e.lemma);
            if (it == table.end()) continue;
            source = &it->second;
        }
        put(out.syn, source->syn, key);
        put(out.hyp, source->hyp, key);
        put(out.der, source->der, key);
    }
    std::string body;
    for (auto& [key, e] : stemmed) {
        if (e.lemma.empty() && e.syn.empty() && e.hyp.empty() && e.der.empty()) continue;
        body += key;
        for (auto* words : {&e.lemma, &e.syn, &e.hyp, &e.der}) {
            body += '\t';
            bool first = true;
            for (auto& w : *words) {
                if (!first) body += ' ';
                body += w;
                first = false;
            }
        }
        body += '\n';
    }

    std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
    out << "// Generated by coffer-toolsearch-lexicon-gen from " << (lemmas ? dir : std::string("(no WordNet found)"))
        << " — do not edit.\n#include \"toolsearch/lexicon.hpp\"\n\nnamespace coffer::toolsearch {\n\n"
        << "extern const std::string_view kLexiconSource = \"" << (lemmas ? "WordNet 3.0 (" + dir + ")" : "") << "\";\n"
        << "extern const std::string_view kLexiconData = ";
    // Raw string pieces: GCC accepts long literals, but a few KB per piece keeps diagnostics sane.
    if (body.empty()) out << "\"\"";
    for (std::size_t i = 0; i < body.size();) {
        std::size_t n = std::min<std::size_t>(8192, body.size() - i);
        while (i + n < body.size() && body[i + n - 1] != '\n') --n;
        out << "\n    R\"L(" << body.substr(i, n) << ")L\"";
        i += n;
    }
    out << ";\n\n}  // namespace coffer::toolsearch\n";
    if (!out) {
        std::fprintf(stderr, "coffer-toolsearch-lexicon-gen: cannot write %s\n", argv[2]);
        return 1;
    }
    std::printf("lexicon: %zu lemmas from %s, %zu bytes\n", lemmas, dir.c_str(), body.size());
    return 0;
}
