#include "toolsearch/tokenize.hpp"

#include "toolsearch/codepoint.hpp"
#include "toolsearch/stem.hpp"

#include <coffer/utf8.hpp>

namespace coffer::toolsearch {

namespace {

class Tokenizer {
public:
    explicit Tokenizer(std::vector<std::string>& out) : out_(out) {}

    void run(std::string_view text) {
        std::size_t i = 0;
        while (i < text.size()) {
            char32_t c = cp::fold_width(cp::next(text, i));
            if (cp::is_cjk(c)) {
                flush_word();
                if (is_cjk_particle(c)) flush_cjk();
                else cjk_.push_back(c);
                continue;
            }
            flush_cjk();
            if (cp::is_letter(c) || cp::is_digit(c)) word_.push_back(c);
            else flush_word();
        }
        flush_word();
        flush_cjk();
    }

private:
    // A finished alphanumeric run, in its original case.
    void flush_word() {
        if (word_.empty()) return;
        std::u32string w;
        w.swap(word_);
        // An acronym's plural ("PRs", "URLs", "APIs") is the acronym.
        if (w.size() >= 3 && w.back() == U's') {
            bool acronym = true;
            for (std::size_t k = 0; k + 1 < w.size(); ++k) acronym = acronym && cp::is_upper(w[k]);
            if (acronym) w.pop_back();
        }
        std::size_t start = 0, parts = 0;
        for (std::size_t k = 1; k < w.size(); ++k) {
            char32_t a = w[k - 1], b = w[k];
            bool boundary = cp::is_digit(a) != cp::is_digit(b) ||
                            (!cp::is_upper(a) && !cp::is_digit(a) && cp::is_upper(b)) ||
                            (cp::is_upper(a) && cp::is_upper(b) && k + 1 < w.size() && is_lower_letter(w[k + 1]) &&
                             !(k + 2 == w.size() && w[k + 1] == U's'));  // "getURLs": get, urls
            if (!boundary) continue;
            emit(w.substr(start, k - start));
            ++parts;
            start = k;
        }
        emit(w.substr(start));
        if (++parts > 1) emit(w);
    }

    void flush_cjk() {
        if (cjk_.empty()) return;
        // Filler words ("一下", "如何", …) split the run like particles do.
        for (std::size_t k = 0; k + 1 < cjk_.size(); ++k) {
            if (!is_cjk_filler(cjk_[k], cjk_[k + 1])) continue;
            std::u32string rest = cjk_.substr(k + 2);
            cjk_.resize(k);
            flush_cjk();
            cjk_ = std::move(rest);
            return flush_cjk();
        }
        std::string s;
        if (cjk_.size() == 1) {
            utf8::append(s, cjk_[0]);
            out_.push_back(std::move(s));
        }
        for (std::size_t k = 0; k + 1 < cjk_.size(); ++k) {
            s.clear();
            utf8::append(s, cjk_[k]);
            utf8::append(s, cjk_[k + 1]);
            out_.push_back(s);
        }
        cjk_.clear();
    }

    static bool is_lower_letter(char32_t c) { return cp::is_letter(c) && !cp::is_upper(c); }

    void emit(const std::u32string& part) {
        std::string s;
        for (char32_t c : part) utf8::append(s, cp::lower(c));
        if (s.size() == 1 && !cp::is_digit(static_cast<unsigned char>(s[0]))) return;  // single letters
        if (is_stopword(s)) return;
        out_.push_back(stem(s));
    }

    std::vector<std::string>& out_;
    std::u32string word_, cjk_;
};

}  // namespace

void tokenize(std::string_view text, std::vector<std::string>& out) { Tokenizer(out).run(text); }

std::vector<std::string> tokenize(std::string_view text) {
    std::vector<std::string> out;
    tokenize(text, out);
    return out;
}

}  // namespace coffer::toolsearch
