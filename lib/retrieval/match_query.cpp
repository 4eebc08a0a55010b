// Building MATCH expressions (see match_query.hpp).
#include "retrieval/match_query.hpp"

#include "retrieval/cjk/segment.hpp"
#include "retrieval/stopwords.hpp"

#include <vector>

namespace coffer::retrieval {
namespace {

// Terms hold no '"' (segment.hpp: only letters, digits and inner joiners), so quoting is safe.
std::string quoted(const cjk::Term& t) { return "\"" + t.text + "\"" + (t.prefix ? "*" : ""); }

std::string join(const std::vector<cjk::Term>& terms, const char* op) {
    std::string out;
    for (const auto& t : terms) {
        if (!out.empty()) out += op;
        out += quoted(t);
    }
    return out;
}

}  // namespace

MatchQueries build_match(std::string_view user_text) {
    auto terms = cjk::query_terms(user_text);
    MatchQueries m;
    m.all = join(terms, " AND ");
    if (terms.size() < 2) return m;
    std::vector<cjk::Term> kept;
    for (const auto& t : terms)
        if (!is_stop_word(t.text)) kept.push_back(t);
    // A question made only of stop words ("what is this") still deserves an answer.
    if (kept.empty()) kept = terms;
    m.any = join(kept, " OR ");
    return m;
}

}  // namespace coffer::retrieval
