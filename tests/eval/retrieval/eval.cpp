// Retrieval quality of lib/retrieval over a generated knowledge base (see README.md next to this
// file). The hand-written topic sheets of corpus/*.md are expanded, deterministically, into a
// few hundred Markdown documents in a temporary folder (the sheets themselves, variants of some
// for other services, archived older copies, folder index pages, daily journals and weekly ops
// notes that mention the same topics); one retrieval::Index is synced over it, every query of
// queries.json is run through each engine, and a query counts as found at k when one of its judged
// relevant documents is among the first k distinct documents of the answer.
//
// Engines: grep, keyword, and-only (the keyword engine's FTS5 table asked with every term ANDed
// and no OR fallback: the baseline a plain full-text query gives), vector and hybrid. The vector
// engine needs an Embedder; with no model offline, this program brings a stand-in (LsaEmbedder:
// latent semantic analysis over the generated corpus, a truncated SVD of its TF-IDF matrix). The
// figures a real embedding model (OpenAI, Ollama) gives are not measured here.
//
//   coffer-eval-retrieval [--dir DIR] [--min-recall5-hybrid X] [--min-rescued N] [--json]
//                         [--verbose] [--keep]
//
// Exits 1 when hybrid recall@5 is below --min-recall5-hybrid, when hybrid does not beat grep,
// keyword and vector (a recall@5 at least as high and a higher MRR), or when keyword answers
// fewer than --min-rescued of the natural-language questions the AND-only query misses; 2 when
// the set cannot be read.
#include "retrieval/embedder.hpp"
#include "retrieval/index.hpp"
#include "retrieval/types.hpp"

#include <coffer/utf8.hpp>

#include <boost/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#ifndef COFFER_EVAL_DIR
#define COFFER_EVAL_DIR "."
#endif

namespace fs = std::filesystem;
namespace json = boost::json;
namespace rt = coffer::retrieval;

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers: files, UTF-8, a seeded generator that is the same on every platform.

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_text(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

std::string trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t");
    return std::string(s.substr(b, e - b + 1));
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Decodes one code point at s[i], advancing i; invalid bytes read as U+FFFD.
char32_t next_cp(std::string_view s, std::size_t& i) {
    std::size_t n = coffer::utf8::sequence_length(s, i);
    if (n == 0) {
        ++i;
        return 0xFFFD;
    }
    char32_t c = coffer::utf8::decode(s, i, n);
    i += n;
    return c;
}

bool is_cjk(char32_t c) {
    return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
           (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x2FA1F);
}

bool is_word_char(char32_t c) { return (c < 0x80 && std::isalnum(static_cast<int>(c))) || (c >= 0xC0 && !is_cjk(c) && c < 0x3000); }

bool has_cjk(std::string_view s) {
    for (std::size_t i = 0; i < s.size();)
        if (is_cjk(next_cp(s, i))) return true;
    return false;
}

// splitmix64: tiny, well mixed, and the same sequence everywhere (std distributions are not).
struct Rng {
    std::uint64_t s;
    explicit Rng(std::uint64_t seed) : s(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    double gaussian() {
        double u1 = std::max(uniform(), 1e-300), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    template <class T>
    void shuffle(std::vector<T>& v) {
        for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
    }
};

// ---------------------------------------------------------------------------------------------
// The corpus: topic sheets and the generator.
//
// A sheet file holds sheets, each starting with "=== <relative path>", then directive lines, then
// the Markdown body:
//   @log <line>                                 one line for the journals and weekly notes
//   @variant <path> | <from> => <to> | ...     the same note for another service (literal edits)

struct Variant {
    std::string path;
    std::vector<std::pair<std::string, std::string>> edits;
};

struct Sheet {
    std::string path, body;
    std::vector<std::string> logs;
    std::vector<Variant> variants;
    bool zh = false;
    std::string title() const {
        for (auto& l : split_lines(body))
            if (starts_with(l, "# ")) return l.substr(2);
        return path;
    }
};

std::vector<Sheet> read_sheets(const fs::path& dir) {
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".md") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<Sheet> sheets;
    for (auto& f : files) {
        Sheet* cur = nullptr;
        bool in_body = false;
        for (auto& line : split_lines(read_text(f))) {
            if (starts_with(line, "=== ")) {
                sheets.push_back({});
                cur = &sheets.back();
                cur->path = trim(line.substr(4));
                in_body = false;
                continue;
            }
            if (!cur) continue;
            if (!in_body && starts_with(line, "@log ")) cur->logs.push_back(trim(line.substr(5)));
            else if (!in_body && starts_with(line, "@variant ")) {
                Variant v;
                std::string rest = line.substr(9);
                std::size_t pos = 0;
                bool first = true;
                while (pos <= rest.size()) {
                    auto bar = rest.find(" | ", pos);
                    std::string part = rest.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos);
                    if (first) v.path = trim(part), first = false;
                    else {
                        auto arrow = part.find(" => ");
                        if (arrow == std::string::npos) throw std::runtime_error("bad @variant edit in " + cur->path + ": " + part);
                        v.edits.emplace_back(trim(part.substr(0, arrow)), trim(part.substr(arrow + 4)));
                    }
                    if (bar == std::string::npos) break;
                    pos = bar + 3;
                }
                cur->variants.push_back(std::move(v));
            } else {
                in_body = true;
                cur->body += line + "\n";
            }
        }
    }
    for (auto& s : sheets) {
        while (!s.body.empty() && (s.body.front() == '\n')) s.body.erase(0, 1);
        while (s.body.size() > 1 && s.body[s.body.size() - 1] == '\n' && s.body[s.body.size() - 2] == '\n') s.body.pop_back();
        s.zh = has_cjk(s.path) || has_cjk(s.title());
    }
    return sheets;
}

std::vector<std::string> read_pool(const fs::path& p) {
    std::vector<std::string> out;
    for (auto& l : split_lines(read_text(p)))
        if (!trim(l).empty()) out.push_back(trim(l));
    return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    std::size_t pos = 0;
    while ((pos = s.find(from, pos)) != std::string::npos) {
        s.replace(pos, from.size(), to);
        pos += to.size();
    }
    return s;
}

struct Doc {
    std::string path, text, kind;
};

const char* kWeekday[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
const char* kMonth[] = {"January", "February", "March", "April", "May", "June",
                        "July", "August", "September", "October", "November", "December"};

struct Day {
    int y, m, d, wd;  // wd: 0 = Monday
};

// Working days of 2024 from 2 January on (2024-01-01 was a Monday).
std::vector<Day> working_days(std::size_t n) {
    static const int len[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    std::vector<Day> out;
    int wd = 0;
    for (int y = 2024; out.size() < n; ++y)
        for (int m = 1; m <= 12 && out.size() < n; ++m)
            for (int d = 1; d <= len[m - 1] && out.size() < n; ++d, wd = (wd + 1) % 7)
                if (wd < 5 && !(m == 1 && d == 1)) out.push_back({y, m, d, wd});
    return out;
}

std::string two(int v) { return (v < 10 ? "0" : "") + std::to_string(v); }

std::string folder_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash);
}

// The first block of a note: everything before its second "## " heading.
std::string first_section(const std::string& body) {
    int seen = 0;
    std::string out;
    for (auto& l : split_lines(body)) {
        if (starts_with(l, "## ") && ++seen == 2) break;
        out += l + "\n";
    }
    return out;
}

std::vector<Doc> generate(const std::vector<Sheet>& sheets, const std::vector<std::string>& pool_en,
                          const std::vector<std::string>& pool_zh, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<Doc> docs;
    std::set<std::string> paths;
    auto add = [&](std::string path, std::string text, const char* kind) {
        if (!paths.insert(path).second) throw std::runtime_error("two documents at " + path);
        docs.push_back({std::move(path), std::move(text), kind});
    };

    // 1. The sheets themselves, and their variants for other services.
    for (auto& s : sheets) {
        add(s.path, s.body, "note");
        for (auto& v : s.variants) {
            std::string text = s.body;
            for (auto& [from, to] : v.edits) {
                if (s.body.find(from) == std::string::npos)
                    throw std::runtime_error("variant " + v.path + ": '" + from + "' is not in " + s.path);
                text = replace_all(text, from, to);
            }
            add(v.path, text, "variant");
        }
    }

    // 2. Archived older copies of about a third of the notes: the opening part only, pointing at
    //    the current note. They share nearly all their words with it, and are not what a user wants.
    for (auto& s : sheets) {
        if (rng.below(3) != 0) continue;
        std::string head = first_section(s.body);
        auto nl = head.find('\n');
        std::string rest = nl == std::string::npos ? "" : head.substr(nl + 1);
        std::string text = s.zh ? "# " + s.title() + "（旧版）\n\n> 2023 年归档，已过时。当前版本见 [[" + s.path + "]]。\n" + rest
                                : "# " + s.title() + " (old)\n\n> Archived in 2023 and out of date. The current note is [[" + s.path + "]].\n" + rest;
        add("archive/2023/" + s.path, text, "archive");
    }

    // 3. A folder index page per folder of notes.
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> folders;
    for (auto& d : docs)
        if (d.kind == std::string("note") || d.kind == std::string("variant")) {
            std::string title;
            for (auto& l : split_lines(d.text))
                if (starts_with(l, "# ")) { title = l.substr(2); break; }
            folders[folder_of(d.path)].emplace_back(d.path.substr(folder_of(d.path).size() + 1), title);
        }
    for (auto& [folder, entries] : folders) {
        bool zh = has_cjk(folder);
        std::string text = zh ? "# 目录：" + folder + "\n\n本目录下的笔记：\n\n" : "# Index of " + folder + "\n\nNotes in this folder:\n\n";
        for (auto& [file, title] : entries) text += "- [" + title + "](" + file + ")\n";
        add(folder + "/index.md", text, "index");
    }

    // 4. Daily journals: the sheets' log lines spread over working days, between ordinary entries.
    auto journal = [&](bool zh, std::size_t days, const std::vector<std::string>& pool) {
        std::vector<std::string> logs;
        for (auto& s : sheets)
            if (s.zh == zh)
                for (auto& l : s.logs) logs.push_back(l);
        std::vector<std::vector<std::string>> per_day(days);
        for (auto& l : logs) per_day[rng.below(days)].push_back(l);
        auto calendar = working_days(days * 2);
        std::vector<std::size_t> pick(calendar.size());
        std::iota(pick.begin(), pick.end(), 0);
        rng.shuffle(pick);
        pick.resize(days);
        std::sort(pick.begin(), pick.end());
        for (std::size_t i = 0; i < days; ++i) {
            const Day& day = calendar[pick[i]];
            std::vector<std::string> done = per_day[i];
            std::vector<std::size_t> idx(pool.size());
            std::iota(idx.begin(), idx.end(), 0);
            rng.shuffle(idx);
            std::size_t n_done = 1 + rng.below(3), n_notes = rng.below(3), k = 0;
            for (std::size_t j = 0; j < n_done; ++j) done.push_back(pool[idx[k++]]);
            std::string date = std::to_string(day.y) + "-" + two(day.m) + "-" + two(day.d);
            std::string text = zh ? "# " + std::to_string(day.y) + " 年 " + std::to_string(day.m) + " 月 " + std::to_string(day.d) + " 日 工作日志\n\n## 今天完成\n\n"
                                  : std::string("# ") + kWeekday[day.wd] + ", " + std::to_string(day.d) + " " + kMonth[day.m - 1] + " " +
                                        std::to_string(day.y) + "\n\n## Done\n\n";
            for (auto& l : done) text += "- " + l + "\n";
            if (n_notes) {
                text += zh ? "\n## 备注\n\n" : "\n## Notes\n\n";
                for (std::size_t j = 0; j < n_notes; ++j) text += "- " + pool[idx[k++]] + "\n";
            }
            add((zh ? "zh/日志/" : "journal/" + std::to_string(day.y) + "/") + date + ".md", text, "journal");
        }
    };
    journal(false, 230, pool_en);
    journal(true, 80, pool_zh);

    // 5. Weekly ops sync notes: what happened (log lines again) and follow-ups naming notes.
    std::vector<std::string> en_logs;
    std::vector<const Sheet*> en_sheets;
    for (auto& s : sheets)
        if (!s.zh) {
            en_sheets.push_back(&s);
            for (auto& l : s.logs) en_logs.push_back(l);
        }
    rng.shuffle(en_logs);
    const char* people[] = {"Ana", "Tomás", "Wei", "Priya", "Laura", "Mei", "Jonas"};
    std::size_t next_log = 0;
    for (int week = 2; week <= 27; ++week) {
        std::string text = "# Ops sync, week " + std::to_string(week) + " of 2024\n\n## Since last time\n\n";
        std::size_t n = 2 + rng.below(2);
        for (std::size_t j = 0; j < n; ++j) text += "- " + en_logs[next_log++ % en_logs.size()] + "\n";
        text += "\n## Follow-ups\n\n";
        std::size_t f = 1 + rng.below(3);
        for (std::size_t j = 0; j < f; ++j) {
            const Sheet* s = en_sheets[rng.below(en_sheets.size())];
            text += std::string("- ") + people[rng.below(7)] + ": check that \"" + s->title() + "\" is still accurate.\n";
        }
        add("meetings/ops-sync/2024-w" + two(week) + ".md", text, "weekly");
    }
    return docs;
}

// ---------------------------------------------------------------------------------------------
// The stand-in embedder: latent semantic analysis. Terms are English words (lowercased, lightly
// stemmed, stop words dropped) and CJK bigrams; a text is a sublinear TF-IDF vector over the
// vocabulary of the generated corpus; the embedding is its projection on the top k left singular
// vectors of the corpus' term-by-section matrix, found by a randomised range finder with power
// iterations (Halko, Martinsson and Tropp 2011) and the eigen-decomposition of the small matrix.

const std::set<std::string>& stop_words() {
    static const std::set<std::string> s = {
        "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before",
        "but", "by", "can", "could", "did", "do", "does", "doe", "for", "from", "had", "has", "have", "how", "i", "if", "in",
        "into", "is", "it", "its", "just", "me", "my", "no", "not", "of", "on", "one", "only", "or", "our", "out", "over",
        "should", "so", "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to",
        "up", "us", "was", "we", "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
        "you", "your", "get", "ha", "wa"};
    return s;
}

std::string stem(std::string w) {
    auto ends = [&](std::string_view suf) { return w.size() > suf.size() && w.compare(w.size() - suf.size(), suf.size(), suf) == 0; };
    if (ends("'s")) w.resize(w.size() - 2);
    if (w.size() > 4 && ends("ies")) w.replace(w.size() - 3, 3, "y");
    else if (w.size() > 3 && ends("s") && !ends("ss") && !ends("us")) w.pop_back();
    if (w.size() > 5 && ends("ing")) w.resize(w.size() - 3);
    else if (w.size() > 4 && ends("ed")) w.resize(w.size() - 2);
    return w;
}

std::vector<std::string> lsa_terms(std::string_view text) {
    std::vector<std::string> out;
    std::string word;
    std::vector<char32_t> run;
    auto flush_word = [&] {
        if (!word.empty()) {
            std::string w = stem(word);
            if (w.size() > 1 && !stop_words().count(word) && !stop_words().count(w)) {
                out.push_back("w" + w);
                // Subword pieces: the 4-grams of the unstemmed word with boundary marks, so that
                // "evict", "eviction" and "evicted" share most of their features.
                std::string b = "<" + word + ">";
                if (b.size() >= 4)
                    for (std::size_t i = 0; i + 4 <= b.size(); ++i) out.push_back("g" + b.substr(i, 4));
            }
            word.clear();
        }
    };
    auto flush_run = [&] {
        // CJK: bigrams as words, single characters as the subword pieces.
        for (std::size_t i = 0; i < run.size(); ++i) {
            std::string s = "g";
            coffer::utf8::append(s, run[i]);
            out.push_back(s);
        }
        if (run.size() == 1) out.push_back("w" + out.back().substr(1));
        for (std::size_t i = 0; i + 1 < run.size(); ++i) {
            std::string s = "w";
            coffer::utf8::append(s, run[i]);
            coffer::utf8::append(s, run[i + 1]);
            out.push_back(s);
        }
        run.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = next_cp(text, i);
        if (is_cjk(c)) {
            flush_word();
            run.push_back(c);
        } else if (is_word_char(c)) {
            flush_run();
            if (c < 0x80) c = static_cast<char32_t>(std::tolower(static_cast<int>(c)));
            coffer::utf8::append(word, c);
        } else {
            flush_word();
            flush_run();
        }
    }
    flush_word();
    flush_run();
    return out;
}

using Column = std::vector<double>;  // dense matrices are stored as columns

void orthonormalise(std::vector<Column>& cols) {  // modified Gram-Schmidt, twice for stability
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t j = 0; j < cols.size(); ++j) {
            for (std::size_t i = 0; i < j; ++i) {
                double dot = 0;
                for (std::size_t r = 0; r < cols[j].size(); ++r) dot += cols[i][r] * cols[j][r];
                for (std::size_t r = 0; r < cols[j].size(); ++r) cols[j][r] -= dot * cols[i][r];
            }
            double norm = 0;
            for (double v : cols[j]) norm += v * v;
            norm = std::sqrt(norm);
            if (norm < 1e-12) std::fill(cols[j].begin(), cols[j].end(), 0.0);
            else
                for (double& v : cols[j]) v /= norm;
        }
}

// Eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: values and vectors
// (vectors as columns of v), largest first.
void jacobi_eigen(std::vector<std::vector<double>> a, std::vector<double>& values, std::vector<Column>& vectors) {
    std::size_t n = a.size();
    std::vector<std::vector<double>> v(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < n; ++i) v[i][i] = 1;
    for (int sweep = 0; sweep < 60; ++sweep) {
        double off = 0;
        for (std::size_t p = 0; p < n; ++p)
            for (std::size_t q = p + 1; q < n; ++q) off += a[p][q] * a[p][q];
        if (off < 1e-22) break;
        for (std::size_t p = 0; p < n; ++p)
            for (std::size_t q = p + 1; q < n; ++q) {
                if (std::fabs(a[p][q]) < 1e-300) continue;
                double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
                double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (std::size_t k = 0; k < n; ++k) {
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (std::size_t k = 0; k < n; ++k) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for (std::size_t k = 0; k < n; ++k) {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a[x][x] > a[y][y]; });
    values.clear();
    vectors.clear();
    for (std::size_t i : order) {
        values.push_back(a[i][i]);
        Column col(n);
        for (std::size_t k = 0; k < n; ++k) col[k] = v[k][i];
        vectors.push_back(std::move(col));
    }
}

class LsaEmbedder : public rt::Embedder {
public:
    // Fits on the given texts (the corpus split at its headings, like the index's chunks).
    LsaEmbedder(const std::vector<std::string>& texts, std::size_t dims, std::size_t hash_dims, double lexical, std::uint64_t seed)
        : hash_dims_(hash_dims), lexical_(lexical), n_texts_(texts.size()) {
        std::unordered_map<std::string, std::size_t> df;
        std::vector<std::unordered_map<std::string, int>> counts(texts.size());
        for (std::size_t j = 0; j < texts.size(); ++j) {
            for (auto& t : lsa_terms(texts[j])) ++counts[j][t];
            for (auto& [t, c] : counts[j]) ++df[t];
        }
        std::vector<std::string> terms;
        for (auto& [t, n] : df)
            if (n >= 2) terms.push_back(t);
        std::sort(terms.begin(), terms.end());
        for (std::size_t i = 0; i < terms.size(); ++i) {
            vocab_[terms[i]] = i;
            subword_.push_back(terms[i][0] == 'g');
            idf_.push_back(std::log(static_cast<double>(texts.size()) / static_cast<double>(df[terms[i]])));
        }
        std::vector<std::vector<std::pair<std::size_t, double>>> x;  // sparse columns
        for (auto& c : counts) x.push_back(weigh(c));
        std::size_t m = terms.size(), n = x.size();
        dims = std::min({dims, m, n});
        std::size_t l = std::min({dims + 24, m, n});

        Rng rng(seed);
        std::vector<Column> omega(l, Column(n));
        for (auto& col : omega)
            for (double& v : col) v = rng.gaussian();
        auto times_x = [&](const std::vector<Column>& right) {  // X * right (right: n-long columns)
            std::vector<Column> out(right.size(), Column(m, 0.0));
            for (std::size_t j = 0; j < n; ++j)
                for (auto& [t, w] : x[j])
                    for (std::size_t c = 0; c < right.size(); ++c) out[c][t] += w * right[c][j];
            return out;
        };
        auto times_xt = [&](const std::vector<Column>& left) {  // X^T * left (left: m-long columns)
            std::vector<Column> out(left.size(), Column(n, 0.0));
            for (std::size_t j = 0; j < n; ++j)
                for (auto& [t, w] : x[j])
                    for (std::size_t c = 0; c < left.size(); ++c) out[c][j] += w * left[c][t];
            return out;
        };
        auto q = times_x(omega);
        orthonormalise(q);
        for (int it = 0; it < 3; ++it) {
            auto z = times_xt(q);
            orthonormalise(z);
            q = times_x(z);
            orthonormalise(q);
        }
        auto z = times_xt(q);  // B^T, with B = Q^T X
        std::vector<std::vector<double>> bbt(l, std::vector<double>(l, 0.0));
        for (std::size_t a = 0; a < l; ++a)
            for (std::size_t b = a; b < l; ++b) {
                double s = 0;
                for (std::size_t j = 0; j < n; ++j) s += z[a][j] * z[b][j];
                bbt[a][b] = bbt[b][a] = s;
            }
        std::vector<double> values;
        std::vector<Column> w;
        jacobi_eigen(bbt, values, w);
        // U = Q W, kept as a term-major table: basis_[t * dims + k].
        dims_ = dims;
        basis_.assign(m * dims, 0.0);
        for (std::size_t k = 0; k < dims; ++k) {
            singular_.push_back(std::sqrt(std::max(values[k], 0.0)));
            for (std::size_t c = 0; c < l; ++c)
                for (std::size_t t = 0; t < m; ++t) basis_[t * dims + k] += q[c][t] * w[k][c];
        }
    }

    std::string model_id() const override {
        return "coffer-eval-lsa@" + std::to_string(dims_) + "+" + std::to_string(hash_dims_);
    }

    std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) override {
        std::vector<std::vector<float>> out;
        for (auto& text : texts) {
            std::unordered_map<std::string, int> counts;
            for (auto& t : lsa_terms(text)) ++counts[t];
            std::vector<double> v(dims_, 0.0), h(hash_dims_, 0.0);
            for (auto& [t, w] : weigh(counts))
                for (std::size_t k = 0; k < dims_; ++k) v[k] += w * basis_[t * dims_ + k];
            // The lexical part: every term (known or not, so a rare identifier still counts) by
            // signed feature hashing, weighted like the vocabulary with df 1 for unknown terms.
            for (auto& [t, c] : counts) {
                auto it = vocab_.find(t);
                double idf = it == vocab_.end() ? std::log(static_cast<double>(n_texts_)) : idf_[it->second];
                std::uint64_t x = 1469598103934665603ull;
                for (unsigned char ch : t) x = (x ^ ch) * 1099511628211ull;
                double w = (1 + std::log(static_cast<double>(c))) * idf * (t[0] == 'g' ? kSubword : 1.0);
                h[x % hash_dims_] += (x >> 63) ? w : -w;
            }
            auto unit = [](std::vector<double>& a) {
                double n = 0;
                for (double d : a) n += d * d;
                if (n > 1e-24)
                    for (double& d : a) d /= std::sqrt(n);
                return n > 1e-24;
            };
            bool any = unit(v);
            any = unit(h) || any;
            std::vector<float> f(dims_ + hash_dims_, 0.0f);
            double a = std::sqrt(1 - lexical_), b = std::sqrt(lexical_);
            for (std::size_t k = 0; k < dims_; ++k) f[k] = static_cast<float>(a * v[k]);
            for (std::size_t k = 0; k < hash_dims_; ++k) f[dims_ + k] = static_cast<float>(b * h[k]);
            double n = 0;
            for (float d : f) n += static_cast<double>(d) * d;
            if (!any || n < 1e-24) {  // no term at all: a fixed direction
                std::fill(f.begin(), f.end(), 0.0f);
                f[0] = 1.0f;
            } else
                for (float& d : f) d = static_cast<float>(d / std::sqrt(n));
            out.push_back(std::move(f));
        }
        ++calls_;
        texts_ += texts.size();
        return out;
    }

    std::size_t vocabulary() const { return vocab_.size(); }
    std::size_t texts_embedded() const { return texts_; }
    double top_singular_share(std::size_t k) const {
        double all = 0, top = 0;
        for (std::size_t i = 0; i < singular_.size(); ++i) {
            all += singular_[i] * singular_[i];
            if (i < k) top += singular_[i] * singular_[i];
        }
        return all > 0 ? top / all : 0;
    }

private:
    std::vector<std::pair<std::size_t, double>> weigh(const std::unordered_map<std::string, int>& counts) const {
        // Words and subword pieces are two blocks, each normalised on its own and then mixed
        // (pieces at kSubword), so the many pieces of a word do not drown the word itself.
        std::vector<std::pair<std::size_t, double>> col;
        double norm[2] = {0, 0};
        std::vector<int> block;
        for (auto& [t, c] : counts) {
            auto it = vocab_.find(t);
            if (it == vocab_.end()) continue;
            double w = (1 + std::log(static_cast<double>(c))) * idf_[it->second];
            col.emplace_back(it->second, w);
        }
        std::sort(col.begin(), col.end());
        for (auto& [t, w] : col) {
            block.push_back(subword_[t] ? 1 : 0);
            norm[block.back()] += w * w;
        }
        double total = 0;
        for (std::size_t i = 0; i < col.size(); ++i) {
            col[i].second *= (block[i] ? kSubword : 1.0) / std::sqrt(norm[block[i]]);
            total += col[i].second * col[i].second;
        }
        if (total > 0)
            for (auto& e : col) e.second /= std::sqrt(total);
        return col;
    }

    static constexpr double kSubword = 0.6;
    std::unordered_map<std::string, std::size_t> vocab_;
    std::vector<char> subword_;
    std::vector<double> idf_, singular_, basis_;
    std::size_t dims_ = 0, calls_ = 0, texts_ = 0, hash_dims_ = 0;
    double lexical_ = 0;
    std::size_t n_texts_ = 0;
};

// Sections of a Markdown text split at its headings, each prefixed with the document's title.
std::vector<std::string> sections(const std::string& text) {
    std::vector<std::string> out;
    std::string title, cur;
    for (auto& l : split_lines(text)) {
        if (starts_with(l, "#")) {
            if (title.empty() && starts_with(l, "# ")) title = l.substr(2);
            if (!trim(cur).empty()) out.push_back(title + "\n" + cur);
            cur.clear();
        }
        cur += l + "\n";
    }
    if (!trim(cur).empty()) out.push_back(title + "\n" + cur);
    return out;
}

// ---------------------------------------------------------------------------------------------
// The AND-only baseline: the keyword engine's own FTS5 table, asked with every term of the query
// ANDed (quoted, so punctuation is never syntax; CJK runs as bigrams like the index stores them)
// and no fallback. This is what a plain full-text query answers.

std::string and_only_match(std::string_view q) {
    std::vector<std::string> terms;
    std::string word;
    std::vector<char32_t> run;
    auto push = [&](std::string t) {
        if (!t.empty() && std::find(terms.begin(), terms.end(), t) == terms.end()) terms.push_back(std::move(t));
    };
    auto flush_word = [&] {
        while (!word.empty() && std::string_view(".-_'").find(word.back()) != std::string_view::npos) word.pop_back();
        push("\"" + word + "\"");
        word.clear();
    };
    auto flush_run = [&] {
        if (run.size() == 1) {
            std::string s;
            coffer::utf8::append(s, run[0]);
            push("\"" + s + "\"*");
        }
        for (std::size_t i = 0; i + 1 < run.size(); ++i) {
            std::string s;
            coffer::utf8::append(s, run[i]);
            coffer::utf8::append(s, run[i + 1]);
            push("\"" + s + "\"");
        }
        run.clear();
    };
    for (std::size_t i = 0; i < q.size();) {
        char32_t c = next_cp(q, i);
        if (is_cjk(c)) {
            flush_word();
            run.push_back(c);
        } else if (is_word_char(c) || (!word.empty() && (c == '.' || c == '-' || c == '_' || c == '\''))) {
            flush_run();
            coffer::utf8::append(word, c);
        } else {
            flush_word();
            flush_run();
        }
    }
    flush_word();
    flush_run();
    std::string out;
    for (auto& t : terms) out += (out.empty() ? "" : " AND ") + t;
    return out;
}

class AndOnly {
public:
    explicit AndOnly(const fs::path& index_file) {
        if (sqlite3_open_v2(index_file.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
            throw std::runtime_error("cannot open " + index_file.string());
        const char* sql =
            "SELECT d.path FROM fts JOIN chunks c ON c.id = fts.rowid JOIN documents d ON d.id = c.doc_id "
            "WHERE fts MATCH ?1 ORDER BY rank LIMIT ?2";
        if (sqlite3_prepare_v2(db_, sql, -1, &st_, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("the index has no table the baseline knows: ") + sqlite3_errmsg(db_));
    }
    ~AndOnly() {
        sqlite3_finalize(st_);
        sqlite3_close(db_);
    }
    std::vector<std::string> search(const std::string& q, int limit) {
        std::vector<std::string> out;
        std::string match = and_only_match(q);
        if (match.empty()) return out;
        sqlite3_reset(st_);
        sqlite3_bind_text(st_, 1, match.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st_, 2, limit);
        while (sqlite3_step(st_) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st_, 0)));
        return out;
    }

private:
    sqlite3* db_ = nullptr;
    sqlite3_stmt* st_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Scoring.

struct Tally {
    int n = 0, at1 = 0, at5 = 0;
    double rr = 0;
    void add(std::size_t rank) {  // 1-based; 0 = not found
        ++n;
        at1 += rank == 1;
        at5 += rank >= 1 && rank <= 5;
        rr += rank ? 1.0 / static_cast<double>(rank) : 0.0;
    }
    double recall5() const { return n ? static_cast<double>(at5) / n : 0; }
    double recall1() const { return n ? static_cast<double>(at1) / n : 0; }
    double mrr() const { return n ? rr / n : 0; }
};

struct QueryCase {
    std::string text, type, lang;
    std::vector<std::string> relevant;
};

// Rank (1-based) of the first relevant document among the distinct documents of a hit list.
std::size_t rank_of(const std::vector<std::string>& hit_paths, const std::vector<std::string>& relevant,
                    std::vector<std::string>* distinct_out = nullptr) {
    std::vector<std::string> distinct;
    for (auto& p : hit_paths)
        if (std::find(distinct.begin(), distinct.end(), p) == distinct.end()) distinct.push_back(p);
    if (distinct_out) *distinct_out = distinct;
    for (std::size_t i = 0; i < distinct.size(); ++i)
        if (std::find(relevant.begin(), relevant.end(), distinct[i]) != relevant.end()) return i + 1;
    return 0;
}

fs::path make_temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "coffer-eval-retrieval-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory");
    return tmpl;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path dir = COFFER_EVAL_DIR;
    double min_hybrid = -1;
    int min_rescued = -1;
    bool as_json = false, verbose = false, keep = false;
    std::size_t dims = 192, hash_dims = 256;
    double lexical = 0.7;
    std::uint64_t seed = 20240611;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc) dir = argv[++i];
        else if (a == "--min-recall5-hybrid" && i + 1 < argc) min_hybrid = std::stod(argv[++i]);
        else if (a == "--min-rescued" && i + 1 < argc) min_rescued = std::stoi(argv[++i]);
        else if (a == "--dims" && i + 1 < argc) dims = static_cast<std::size_t>(std::stoul(argv[++i]));
        else if (a == "--hash-dims" && i + 1 < argc) hash_dims = static_cast<std::size_t>(std::stoul(argv[++i]));
        else if (a == "--lexical" && i + 1 < argc) lexical = std::stod(argv[++i]);
        else if (a == "--seed" && i + 1 < argc) seed = std::stoull(argv[++i]);
        else if (a == "--json") as_json = true;
        else if (a == "--verbose") verbose = true;
        else if (a == "--keep") keep = true;
        else {
            std::fprintf(stderr,
                         "usage: coffer-eval-retrieval [--dir DIR] [--min-recall5-hybrid X] [--min-rescued N] [--dims N] "
                         "[--hash-dims N] [--lexical W] [--seed N] [--json] [--verbose] [--keep]\n");
            return 2;
        }
    }

    std::vector<Doc> docs;
    std::vector<QueryCase> queries;
    std::size_t sheet_count = 0;
    try {
        auto sheets = read_sheets(dir / "corpus");
        sheet_count = sheets.size();
        docs = generate(sheets, read_pool(dir / "corpus" / "pool-en.txt"), read_pool(dir / "corpus" / "pool-zh.txt"), seed);
        std::set<std::string> paths;
        for (auto& d : docs) paths.insert(d.path);
        auto qs = json::parse(read_text(dir / "queries.json")).as_object().at("queries").as_array();
        for (auto& qv : qs) {
            auto& q = qv.as_object();
            QueryCase c;
            c.text = std::string(q.at("q").as_string());
            c.type = std::string(q.at("type").as_string());
            c.lang = q.contains("lang") ? std::string(q.at("lang").as_string()) : has_cjk(c.text) ? "zh" : "en";
            for (auto& r : q.at("relevant").as_array()) {
                c.relevant.emplace_back(r.as_string());
                if (!paths.count(c.relevant.back()))
                    throw std::runtime_error("query \"" + c.text + "\" names " + c.relevant.back() + ", which is not generated");
            }
            queries.push_back(std::move(c));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "coffer-eval-retrieval: %s (dir %s)\n", e.what(), dir.string().c_str());
        return 2;
    }

    fs::path tmp;
    int status = 0;
    try {
        tmp = make_temp_dir();
        fs::path root = tmp / "kb";
        std::size_t bytes = 0, zh_docs = 0;
        std::map<std::string, int> kinds;
        for (auto& d : docs) {
            write_text(root / fs::path(d.path), d.text);
            bytes += d.text.size();
            zh_docs += has_cjk(d.path);
            ++kinds[d.kind];
        }

        auto t0 = std::chrono::steady_clock::now();
        // The stand-in is fitted on the corpus' distinct lines, grouped by section: a line that
        // recurs (a journal's routine entry, a log line in a weekly note, a variant's unchanged
        // paragraph) counts once, or the repetition itself becomes the "topics" the SVD finds.
        std::vector<std::string> fit_texts;
        std::set<std::string> seen_lines;
        for (auto& d : docs)
            for (auto& s : sections(d.text)) {
                std::string kept;
                for (auto& l : split_lines(s))
                    if (!trim(l).empty() && seen_lines.insert(trim(l)).second) kept += l + "\n";
                if (!kept.empty()) fit_texts.push_back(std::move(kept));
            }
        LsaEmbedder embedder(fit_texts, dims, hash_dims, lexical, seed);
        double fit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

        rt::Index index(tmp / "index.sqlite");
        rt::Collection kb{"kb", root};
        auto sync = index.sync(kb);
        t0 = std::chrono::steady_clock::now();
        std::size_t embedded = index.embed_pending("kb", embedder);
        double embed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        AndOnly and_only(tmp / "index.sqlite");

        const std::vector<std::string> engines = {"grep", "keyword", "and-only", "vector", "hybrid"};
        std::map<std::string, Tally> overall;
        std::map<std::string, std::map<std::string, Tally>> by_type, by_lang;
        std::map<std::string, std::vector<std::size_t>> ranks;
        std::vector<std::string> lines;
        int degraded = 0;
        for (auto& q : queries) {
            for (auto& engine : engines) {
                std::vector<std::string> paths;
                if (engine == "and-only") paths = and_only.search(q.text, 100);
                else {
                    rt::Query rq;
                    rq.text = q.text;
                    rq.collections = {"kb"};
                    rq.mode = *rt::parse_mode(engine);
                    rq.top_k = 50;
                    auto answer = index.search(rq, {kb}, &embedder);
                    degraded += answer.degraded;
                    for (auto& h : answer.hits) paths.push_back(h.path);
                }
                std::vector<std::string> distinct;
                std::size_t rank = rank_of(paths, q.relevant, &distinct);
                overall[engine].add(rank);
                by_type[engine][q.type].add(rank);
                by_lang[engine][q.lang].add(rank);
                ranks[engine].push_back(rank);
                if (verbose && (engine == "keyword" || engine == "vector" || engine == "hybrid") && (rank == 0 || rank > 5)) {
                    std::string l = "  " + engine + (rank ? " @" + std::to_string(rank) : " MISS") + " [" + q.type + "] \"" + q.text +
                                    "\" wants " + q.relevant.front() + "; got";
                    for (std::size_t i = 0; i < std::min<std::size_t>(3, distinct.size()); ++i) l += " " + distinct[i];
                    lines.push_back(l);
                }
            }
        }

        // Natural-language questions the keyword engine answers (relevant in the top 5) while the
        // same words ANDed do not.
        int questions = 0, rescued = 0, and_empty = 0;
        for (std::size_t i = 0; i < queries.size(); ++i) {
            if (queries[i].type != "question") continue;
            ++questions;
            auto kw = ranks["keyword"][i], an = ranks["and-only"][i];
            if (kw >= 1 && kw <= 5 && !(an >= 1 && an <= 5)) ++rescued;
            if (and_only.search(queries[i].text, 1).empty()) ++and_empty;
        }

        const auto& h = overall["hybrid"];
        // "Beats": at least the recall@5 of the other engine and a strictly higher MRR.
        auto beats = [&](const char* e) { return h.recall5() >= overall[e].recall5() && h.mrr() > overall[e].mrr(); };
        bool beats_grep = beats("grep"), beats_keyword = beats("keyword"), beats_vector = beats("vector");
        std::set<std::string> types;
        for (auto& q : queries) types.insert(q.type);
        int zh_queries = 0;
        for (auto& q : queries) zh_queries += q.lang == "zh";

        if (as_json) {
            json::object o;
            o["documents"] = docs.size();
            o["documents_zh"] = zh_docs;
            o["sheets"] = sheet_count;
            o["bytes"] = bytes;
            o["chunks"] = sync.chunks;
            o["queries"] = queries.size();
            o["queries_zh"] = zh_queries;
            o["embedder"] = embedder.model_id();
            json::object eng;
            for (auto& e : engines) {
                json::object r;
                r["recall@5"] = overall[e].recall5();
                r["recall@1"] = overall[e].recall1();
                r["mrr"] = overall[e].mrr();
                json::object t;
                for (auto& [name, tally] : by_type[e]) t[name] = json::object{{"recall@5", tally.recall5()}, {"mrr", tally.mrr()}, {"n", tally.n}};
                for (auto& [name, tally] : by_lang[e]) t[name] = json::object{{"recall@5", tally.recall5()}, {"mrr", tally.mrr()}, {"n", tally.n}};
                r["by"] = t;
                eng[e] = r;
            }
            o["engines"] = eng;
            o["questions"] = questions;
            o["questions_and_only_empty"] = and_empty;
            o["questions_keyword_answers_and_only_misses"] = rescued;
            o["hybrid_beats"] = json::object{{"grep", beats_grep}, {"keyword", beats_keyword}, {"vector", beats_vector}};
            std::printf("%s\n", json::serialize(o).c_str());
        } else {
            std::printf("retrieval eval: %zu documents (%zu Chinese; %.1f MB) generated from %zu sheets:", docs.size(), zh_docs,
                        static_cast<double>(bytes) / 1e6, sheet_count);
            for (auto& [k, n] : kinds) std::printf(" %d %s", n, k.c_str());
            std::printf("\n  %zu chunks, synced in %.2f s; embedder %s (stand-in LSA, vocabulary %zu, fitted in %.2f s), %zu chunks "
                        "embedded in %.2f s\n",
                        sync.chunks, sync.seconds, embedder.model_id().c_str(), embedder.vocabulary(), fit_s, embedded, embed_s);
            std::printf("  %zu queries (%d Chinese)", queries.size(), zh_queries);
            for (auto& t : types) std::printf(", %d %s", by_type["keyword"][t].n, t.c_str());
            std::printf("; a query is found at k when a judged relevant document is among the first k distinct documents\n");
            for (auto& l : lines) std::printf("%s\n", l.c_str());
            std::printf("\n%-10s %9s %9s %7s", "engine", "recall@5", "recall@1", "MRR");
            for (auto& t : types) std::printf("  %14s", (t + " R@5/MRR").c_str());
            std::printf("  %14s  %14s\n", "en R@5/MRR", "zh R@5/MRR");
            for (auto& e : engines) {
                auto& o = overall[e];
                std::printf("%-10s %9.3f %9.3f %7.3f", e.c_str(), o.recall5(), o.recall1(), o.mrr());
                for (auto& t : types) std::printf("  %8.3f/%.3f", by_type[e][t].recall5(), by_type[e][t].mrr());
                std::printf("  %8.3f/%.3f  %8.3f/%.3f\n", by_lang[e]["en"].recall5(), by_lang[e]["en"].mrr(), by_lang[e]["zh"].recall5(),
                            by_lang[e]["zh"].mrr());
            }
            std::printf("\nnatural-language questions: %d; the AND-only query finds nothing for %d; keyword answers %d of them in "
                        "the top 5 where AND-only does not\n",
                        questions, and_empty, rescued);
            std::printf("hybrid recall@5 %.3f vs grep %.3f, keyword %.3f, vector %.3f: hybrid %s\n", h.recall5(), overall["grep"].recall5(),
                        overall["keyword"].recall5(), overall["vector"].recall5(),
                        beats_grep && beats_keyword && beats_vector ? "beats each single engine (recall@5 >= and MRR >)"
                                                                     : "does NOT beat every single engine");
            std::printf("hybrid MRR %.3f vs grep %.3f, keyword %.3f, vector %.3f\n", h.mrr(), overall["grep"].mrr(), overall["keyword"].mrr(),
                        overall["vector"].mrr());
            if (degraded) std::printf("note: %d answers were degraded\n", degraded);
        }
        if (!(beats_grep && beats_keyword && beats_vector)) {
            std::printf("FAIL: hybrid does not beat every single engine (recall@5 at least as high and MRR higher)\n");
            status = 1;
        }
        if (min_hybrid >= 0 && h.recall5() < min_hybrid) {
            std::printf("FAIL: hybrid recall@5 %.3f is below the target %.3f\n", h.recall5(), min_hybrid);
            status = 1;
        }
        if (min_rescued >= 0 && rescued < min_rescued) {
            std::printf("FAIL: keyword answers %d questions the AND-only query misses, below the target %d\n", rescued, min_rescued);
            status = 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "coffer-eval-retrieval: %s\n", e.what());
        status = 2;
    }
    if (!tmp.empty()) {
        if (keep) std::fprintf(stderr, "kept %s\n", tmp.string().c_str());
        else {
            std::error_code ec;
            fs::remove_all(tmp, ec);
        }
    }
    return status;
}
