// The keyword engine (see keyword.hpp).
//
// The FTS5 lookup runs first and alone: combined with a join filter in one query SQLite's planner
// may give up the FTS index (qmd saw 8 ms become 17 s). So the best matches are fetched over the
// whole index with headroom and filtered afterwards; only when the filter leaves too few and
// there were more matches does a second query rank every match inside a materialised CTE and
// filter there, which cannot starve a small collection.
#include "retrieval/keyword.hpp"

#include "retrieval/match_query.hpp"

#include <boost/json.hpp>

namespace coffer::retrieval {
namespace {

std::vector<Ranked> top_then_filter(sql::Db& db, const std::string& match, const Scope& scope, std::size_t k,
                                    bool& complete) {
    const std::size_t depth = k * 4 + 20;
    sql::Stmt st(db, "SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?");
    sql::Stmt where(db, "SELECT d.collection, d.path FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ?");
    st.bind(1, match).bind(2, static_cast<std::int64_t>(depth));
    std::vector<Ranked> out;
    std::size_t rows = 0;
    while (st.step()) {
        ++rows;
        Ranked r{st.int64(0), -st.real(1)};
        bool keep = scope.whole_index;
        if (!keep) {
            where.bind(1, r.chunk_id);
            keep = where.step() && scope.admits(where.text(0), where.text(1));
            where.reset();
        }
        if (keep && out.size() < k) out.push_back(r);
    }
    complete = out.size() >= k || rows < depth;
    return out;
}

std::vector<Ranked> filter_then_top(sql::Db& db, const std::string& match, const Scope& scope, std::size_t k) {
    sql::Stmt st(db,
                 "WITH m AS MATERIALIZED (SELECT rowid AS id, rank AS r FROM fts WHERE fts MATCH ?1) "
                 "SELECT m.id, m.r FROM m JOIN chunks c ON c.id = m.id JOIN documents d ON d.id = c.doc_id "
                 "WHERE d.collection IN (SELECT value FROM json_each(?2)) "
                 "AND substr(d.path, 1, length(?3)) = ?3 ORDER BY m.r, d.path, c.line_from LIMIT ?4");
    boost::json::array names;
    for (const auto& c : scope.collections) names.emplace_back(c);
    st.bind(1, match).bind(2, boost::json::serialize(names)).bind(3, scope.path_prefix);
    st.bind(4, static_cast<std::int64_t>(k));
    std::vector<Ranked> out;
    while (st.step()) out.push_back({st.int64(0), -st.real(1)});
    return out;
}

std::vector<Ranked> run(sql::Db& db, const std::string& match, const Scope& scope, std::size_t k) {
    bool complete = false;
    auto out = top_then_filter(db, match, scope, k, complete);
    if (!complete) out = filter_then_top(db, match, scope, k);
    return out;
}

}  // namespace

std::vector<Ranked> keyword_search(sql::Db& db, std::string_view user_text, const Scope& scope, std::size_t k) {
    auto m = build_match(user_text);
    if (m.all.empty()) return {};  // only punctuation or symbols: nothing to look for
    auto out = run(db, m.all, scope, k);
    if (out.empty() && !m.any.empty()) out = run(db, m.any, scope, k);
    return out;
}

}  // namespace coffer::retrieval
