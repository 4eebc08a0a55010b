// Snippets (see snippet.hpp).
#include "retrieval/snippet.hpp"

#include "retrieval/cjk/segment.hpp"

#include <coffer/utf8.hpp>

#include <algorithm>
#include <vector>

namespace coffer::retrieval {
namespace {

std::string lower_ascii(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// Offset of the first occurrence of any term in `lower_line`, and how many terms it holds.
std::pair<std::size_t, std::size_t> matches(const std::string& lower_line, const std::vector<std::string>& terms) {
    std::size_t first = std::string::npos, count = 0;
    for (const auto& t : terms) {
        auto at = lower_line.find(t);
        if (at == std::string::npos) continue;
        ++count;
        first = std::min(first, at);
    }
    return {first, count};
}

}  // namespace

std::string cut_utf8(std::string_view text, std::size_t max) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t n = utf8::sequence_length(text, i);
        if (n == 0) {  // not UTF-8: skip the byte
            ++i;
            continue;
        }
        if (out.size() + n > max) break;
        out.append(text.substr(i, n));
        i += n;
    }
    return out;
}

std::string make_snippet(std::string_view text, std::string_view query) {
    std::vector<std::string> terms;
    for (const auto& t : cjk::query_terms(query)) terms.push_back(lower_ascii(t.text));

    std::size_t best_at = 0, best_count = 0, at = 0;
    while (at < text.size() && !terms.empty()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        auto [first, count] = matches(lower_ascii(text.substr(at, end - at)), terms);
        if (count > best_count) {
            best_count = count;
            // Start at the line, or a little before the match when the line is long.
            best_at = first > 120 ? at + first - 60 : at;
        }
        at = end + 1;
    }
    // Move back to the start of a UTF-8 sequence.
    while (best_at > 0 && best_at < text.size() && (static_cast<unsigned char>(text[best_at]) & 0xC0) == 0x80)
        --best_at;
    return cut_utf8(text.substr(best_at), kSnippetBytes);
}

}  // namespace coffer::retrieval
