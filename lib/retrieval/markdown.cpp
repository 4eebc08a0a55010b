// The Markdown chunker (see markdown.hpp). Works on lines: a first pass classifies each line
// (frontmatter, heading, fence, blank, text), a second groups lines into sections at headings,
// a third cuts long sections into blocks that fit kMaxChunkBytes.
#include "retrieval/markdown.hpp"

#include <algorithm>
#include <optional>

namespace coffer::retrieval {
namespace {

struct Line {
    std::string_view text;
    int number;  // 1-based
};

std::vector<Line> split_lines(std::string_view text) {
    std::vector<Line> lines;
    std::size_t at = 0;
    int n = 1;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view l = text.substr(at, end - at);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        lines.push_back({l, n++});
        at = end + 1;
    }
    return lines;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool blank(std::string_view s) { return trim(s).empty(); }

// The fence a line opens or closes: its character and length (≥3), after ≤3 spaces of indent.
struct Fence {
    char ch = 0;
    std::size_t len = 0;
};
std::optional<Fence> fence_of(std::string_view l) {
    std::size_t i = 0;
    while (i < l.size() && i < 3 && l[i] == ' ') ++i;
    if (i >= l.size() || (l[i] != '`' && l[i] != '~')) return std::nullopt;
    char c = l[i];
    std::size_t n = 0;
    while (i + n < l.size() && l[i + n] == c) ++n;
    if (n < 3) return std::nullopt;
    return Fence{c, n};
}

// An ATX heading: its level (1-6) and text without the #s and an optional closing sequence.
struct Heading {
    int level = 0;
    std::string text;
};
std::optional<Heading> heading_of(std::string_view l) {
    std::size_t i = 0;
    while (i < l.size() && i < 3 && l[i] == ' ') ++i;
    std::size_t n = 0;
    while (i + n < l.size() && l[i + n] == '#') ++n;
    if (n == 0 || n > 6) return std::nullopt;
    std::string_view rest = l.substr(i + n);
    if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t') return std::nullopt;
    rest = trim(rest);
    std::size_t closing = rest.find_last_not_of('#');
    if (closing == std::string_view::npos) rest = {};
    else if (closing + 1 < rest.size() && (rest[closing] == ' ' || rest[closing] == '\t'))
        rest = trim(rest.substr(0, closing + 1));
    return Heading{static_cast<int>(n), std::string(rest)};
}

// The value of a top-level `title:` key, without quotes; YAML is not parsed beyond that.
std::optional<std::string> frontmatter_title(std::string_view l) {
    if (l.substr(0, 6) != "title:") return std::nullopt;
    std::string_view v = trim(l.substr(6));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
        v = v.substr(1, v.size() - 2);
    if (v.empty()) return std::nullopt;
    return std::string(v);
}

// Number of lines taken by frontmatter (0 when none) and its title.
std::size_t skip_frontmatter(const std::vector<Line>& lines, std::string& title) {
    if (lines.empty() || trim(lines[0].text) != "---") return 0;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::string_view t = trim(lines[i].text);
        if (t == "---" || t == "...") {
            for (std::size_t k = 1; k < i; ++k)
                if (auto v = frontmatter_title(lines[k].text); v && title.empty()) title = *v;
            return i + 1;
        }
    }
    return 0;  // no closing line: not frontmatter, just a thematic break
}

// A run of lines that must stay together: a paragraph, or a whole fenced block.
struct Block {
    std::size_t first, last;  // indexes into the section's lines
    std::size_t bytes;
};

struct Section {
    std::string heading;
    std::vector<Line> lines;
    std::vector<bool> in_fence;  // per line: part of a fenced block (fences included)
};

std::vector<Block> blocks_of(const Section& s) {
    std::vector<Block> out;
    std::size_t i = 0;
    while (i < s.lines.size()) {
        if (blank(s.lines[i].text) && !s.in_fence[i]) {
            ++i;
            continue;
        }
        std::size_t j = i, bytes = 0;
        bool fence = s.in_fence[i];
        while (j < s.lines.size() && s.in_fence[j] == fence && (fence || !blank(s.lines[j].text))) {
            bytes += s.lines[j].text.size() + 1;
            ++j;
            // A fence's own lines are one block; a paragraph ends where a fence begins.
        }
        out.push_back({i, j - 1, bytes});
        i = j;
    }
    return out;
}

void emit(const Section& s, std::size_t first, std::size_t last, std::vector<Chunk>& out) {
    Chunk c;
    c.heading = s.heading;
    c.line_from = s.lines[first].number;
    c.line_to = s.lines[last].number;
    for (std::size_t k = first; k <= last; ++k) {
        if (k > first) c.text += '\n';
        c.text += s.lines[k].text;
    }
    out.push_back(std::move(c));
}

// One oversized paragraph (no blank line in it) is cut at line boundaries.
void emit_long_paragraph(const Section& s, const Block& b, std::vector<Chunk>& out) {
    std::size_t from = b.first, bytes = 0;
    for (std::size_t k = b.first; k <= b.last; ++k) {
        std::size_t n = s.lines[k].text.size() + 1;
        if (bytes > 0 && bytes + n > kMaxChunkBytes) {
            emit(s, from, k - 1, out);
            from = k;
            bytes = 0;
        }
        bytes += n;
    }
    emit(s, from, b.last, out);
}

// Greedy packing of blocks up to kMaxChunkBytes, counting the blank lines between them too; a
// fence larger than that stays whole.
void chunk_section(const Section& s, std::vector<Chunk>& out) {
    auto blocks = blocks_of(s);
    std::vector<std::size_t> upto(s.lines.size() + 1, 0);  // bytes of lines [0, k), '\n' each
    for (std::size_t k = 0; k < s.lines.size(); ++k) upto[k + 1] = upto[k] + s.lines[k].text.size() + 1;
    auto span = [&](std::size_t a, std::size_t b) { return upto[blocks[b].last + 1] - upto[blocks[a].first] - 1; };
    auto oversized_prose = [&](std::size_t i) { return blocks[i].bytes > kMaxChunkBytes && !s.in_fence[blocks[i].first]; };
    std::size_t i = 0;
    while (i < blocks.size()) {
        if (oversized_prose(i)) {
            emit_long_paragraph(s, blocks[i], out);
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j + 1 < blocks.size() && !oversized_prose(j + 1) && span(i, j + 1) <= kMaxChunkBytes) ++j;
        emit(s, blocks[i].first, blocks[j].last, out);
        i = j + 1;
    }
}

std::string heading_path(const std::vector<Heading>& stack) {
    std::string p;
    for (const auto& h : stack) {
        if (h.text.empty()) continue;
        if (!p.empty()) p += " > ";
        p += h.text;
    }
    return p;
}

// A section whose only non-blank line is its heading adds nothing a child's heading path does
// not already carry, so it gets no chunk of its own.
bool only_heading(const Section& s, bool starts_with_heading) {
    for (std::size_t k = starts_with_heading ? 1 : 0; k < s.lines.size(); ++k)
        if (!blank(s.lines[k].text)) return false;
    return true;
}

}  // namespace

ParsedDocument parse_markdown(std::string_view text, std::string_view fallback_title) {
    ParsedDocument doc;
    auto lines = split_lines(text);
    std::size_t start = skip_frontmatter(lines, doc.title);

    std::vector<Heading> stack;
    Section cur;
    bool cur_has_heading = false;
    std::optional<Fence> open;
    std::string first_h1;
    auto flush = [&] {
        if (!cur.lines.empty() && !only_heading(cur, cur_has_heading)) chunk_section(cur, doc.chunks);
        cur = Section{};
    };
    for (std::size_t i = start; i < lines.size(); ++i) {
        const Line& l = lines[i];
        if (open) {
            auto f = fence_of(l.text);
            if (f && f->ch == open->ch && f->len >= open->len && blank(trim(l.text).substr(f->len))) open.reset();
            cur.lines.push_back(l);
            cur.in_fence.push_back(true);
            continue;
        }
        if (auto f = fence_of(l.text)) {
            open = f;
            cur.lines.push_back(l);
            cur.in_fence.push_back(true);
            continue;
        }
        if (auto h = heading_of(l.text)) {
            flush();
            if (h->level == 1 && first_h1.empty()) first_h1 = h->text;
            while (!stack.empty() && stack.back().level >= h->level) stack.pop_back();
            stack.push_back(*h);
            cur.heading = heading_path(stack);
            cur_has_heading = true;
        }
        cur.lines.push_back(l);
        cur.in_fence.push_back(false);
    }
    flush();

    if (doc.title.empty()) doc.title = !first_h1.empty() ? first_h1 : std::string(fallback_title);
    return doc;
}

}  // namespace coffer::retrieval
