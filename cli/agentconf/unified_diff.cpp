// The unified diff: common leading and trailing lines are set aside (an agent config edit touches
// a few lines of a file that may be long), then a longest-common-subsequence table over the rest.
#include "agentconf/unified_diff.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace coffer::agentconf {

namespace {

struct Line {
    std::string_view text;  // without its newline
    bool newline = true;    // false for a last line without one
};

std::vector<Line> split(std::string_view s) {
    std::vector<Line> out;
    std::size_t pos = 0;
    while (pos < s.size()) {
        auto nl = s.find('\n', pos);
        if (nl == std::string_view::npos) {
            out.push_back({s.substr(pos), false});
            break;
        }
        out.push_back({s.substr(pos, nl - pos), true});
        pos = nl + 1;
    }
    return out;
}

bool same(const Line& a, const Line& b) { return a.text == b.text && a.newline == b.newline; }

enum class Op { keep, del, add };
struct Step {
    Op op;
    std::size_t a;  // index in before (keep, del)
    std::size_t b;  // index in after (keep, add)
};

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, std::string_view before_label,
                         std::string_view after_label, int context) {
    if (before == after) return {};
    auto a = split(before), b = split(after);
    std::size_t pre = 0;
    while (pre < a.size() && pre < b.size() && same(a[pre], b[pre])) ++pre;
    std::size_t suf = 0;
    while (suf < a.size() - pre && suf < b.size() - pre && same(a[a.size() - 1 - suf], b[b.size() - 1 - suf])) ++suf;
    std::size_t n = a.size() - pre - suf, m = b.size() - pre - suf;

    // lcs[i][j]: the longest common subsequence of a[pre+i..] and b[pre+j..] within the middle.
    std::vector<std::vector<unsigned>> lcs(n + 1, std::vector<unsigned>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;)
            lcs[i][j] = same(a[pre + i], b[pre + j]) ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);

    std::vector<Step> steps;
    for (std::size_t k = 0; k < pre; ++k) steps.push_back({Op::keep, k, k});
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && same(a[pre + i], b[pre + j])) { steps.push_back({Op::keep, pre + i, pre + j}); ++i; ++j; }
        // Deletions before additions, as diff prints them.
        else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) { steps.push_back({Op::del, pre + i, 0}); ++i; }
        else { steps.push_back({Op::add, 0, pre + j}); ++j; }
    }
    for (std::size_t k = 0; k < suf; ++k) steps.push_back({Op::keep, a.size() - suf + k, b.size() - suf + k});

    std::string out = "--- " + std::string(before_label) + "\n+++ " + std::string(after_label) + "\n";
    auto emit = [&](char mark, const Line& l) {
        out += mark;
        out += l.text;
        out += '\n';
        if (!l.newline) out += "\\ No newline at end of file\n";
    };
    std::size_t s = 0;
    const std::size_t ctx = static_cast<std::size_t>(std::max(context, 0));
    while (s < steps.size()) {
        while (s < steps.size() && steps[s].op == Op::keep) ++s;
        if (s == steps.size()) break;
        // A hunk: from `ctx` kept lines before the first change to `ctx` after the last change
        // that is followed by fewer than 2*ctx kept lines.
        std::size_t start = s >= ctx ? s - ctx : 0;
        std::size_t end = s;
        while (true) {
            while (end < steps.size() && steps[end].op != Op::keep) ++end;
            std::size_t run = end;
            while (run < steps.size() && steps[run].op == Op::keep) ++run;
            if (run < steps.size() && run - end <= 2 * ctx) { end = run; continue; }
            end = std::min(end + ctx, steps.size());
            break;
        }
        std::size_t a_start = 0, a_len = 0, b_start = 0, b_len = 0;
        bool a_set = false, b_set = false;
        for (std::size_t k = start; k < end; ++k) {
            if (steps[k].op != Op::add) { if (!a_set) { a_start = steps[k].a; a_set = true; } ++a_len; }
            if (steps[k].op != Op::del) { if (!b_set) { b_start = steps[k].b; b_set = true; } ++b_len; }
        }
        // For an empty side, diff names the line the hunk follows (0 at the start of the file).
        if (!a_set) {
            std::size_t before_lines = 0;
            for (std::size_t k = 0; k < start; ++k) before_lines += steps[k].op != Op::add;
            a_start = before_lines;
        }
        if (!b_set) {
            std::size_t before_lines = 0;
            for (std::size_t k = 0; k < start; ++k) before_lines += steps[k].op != Op::del;
            b_start = before_lines;
        }
        auto range = [](std::size_t first, std::size_t len, bool set) {
            std::string r = std::to_string(set ? first + 1 : first);
            if (len != 1) r += "," + std::to_string(len);
            return r;
        };
        out += "@@ -" + range(a_start, a_len, a_set) + " +" + range(b_start, b_len, b_set) + " @@\n";
        for (std::size_t k = start; k < end; ++k) {
            if (steps[k].op == Op::keep) emit(' ', a[steps[k].a]);
            else if (steps[k].op == Op::del) emit('-', a[steps[k].a]);
            else emit('+', b[steps[k].b]);
        }
        s = end;
    }
    return out;
}

}  // namespace coffer::agentconf
