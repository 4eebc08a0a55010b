// The keyword engine (see keyword.hpp).
//
// The FTS5 lookup runs first and alone: combined with a join filter in one query SQLite's planner
// may give up the FTS index (qmd saw 8 ms become 17 s). So the best matches are fetched over the
// whole index with headroom and filtered afterwards; only when the filter leaves too few and
// there were more matches does a second query rank every match inside a materialised CTE and
// filter there, which cannot starve a small collection. Before that, a small scope (a small
// knowledge base in a large index) is searched within the rowid ranges of its own chunks: FTS5
// honours rowid bounds, bm25 keeps its index-wide statistics, so the scores are the same and only
// the scope's rows are ranked.
#include "retrieval/keyword.hpp"

#include "retrieval/match_query.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <optional>
#include <utility>

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

// A scope this small (in chunks) and this fragmented (in runs of consecutive chunk ids) is
// searched range by range; each range costs one statement (bm25 recounts its statistics).
constexpr std::int64_t kRangeScopeChunks = 20000;
constexpr std::size_t kMaxRanges = 8;

// The scope's chunk ids as runs of consecutive ids, or nullopt when the scope is too large or
// too scattered for range queries to pay.
std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> scope_ranges(sql::Db& db, const Scope& scope) {
    sql::Stmt size(db, "SELECT coalesce(sum(chunks), 0) FROM documents WHERE collection = ?");
    std::int64_t chunks = 0;
    for (const auto& c : scope.collections) {
        size.bind(1, c);
        if (size.step()) chunks += size.int64(0);
        size.reset();
        if (chunks > kRangeScopeChunks) return std::nullopt;
    }
    sql::Stmt ids(db,
                  "SELECT c.id FROM documents d CROSS JOIN chunks c ON c.doc_id = d.id WHERE d.collection = ?1 "
                  "AND substr(d.path, 1, length(?2)) = ?2");
    std::vector<std::int64_t> all;
    for (const auto& c : scope.collections) {
        ids.bind(1, c).bind(2, scope.path_prefix);
        while (ids.step()) all.push_back(ids.int64(0));
        ids.reset();
    }
    std::sort(all.begin(), all.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> runs;
    for (auto id : all) {
        if (!runs.empty() && runs.back().second + 1 == id) runs.back().second = id;
        else if (runs.size() == kMaxRanges) return std::nullopt;
        else runs.emplace_back(id, id);
    }
    return runs;
}

// The top k within the ranges, in filter_then_top's order: rank, then path, then line.
std::vector<Ranked> within_ranges(sql::Db& db, const std::string& match,
                                  const std::vector<std::pair<std::int64_t, std::int64_t>>& runs, std::size_t k) {
    sql::Stmt st(db, "SELECT rowid, rank FROM fts WHERE fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3 ORDER BY rank");
    std::vector<std::pair<double, std::int64_t>> found;  // (rank, chunk id)
    for (const auto& [from, to] : runs) {
        st.bind(1, match).bind(2, from).bind(3, to);
        while (st.step()) found.emplace_back(st.real(1), st.int64(0));
        st.reset();
    }
    std::sort(found.begin(), found.end());
    if (found.size() > k) {
        // Everything ranked like the k-th or better is ordered by path and line as well.
        const double kth = found[k - 1].first;
        found.erase(std::find_if(found.begin() + static_cast<std::ptrdiff_t>(k), found.end(),
                                 [&](const auto& f) { return f.first > kth; }),
                    found.end());
    }
    struct Row {
        double rank;
        std::string path;
        std::int64_t line, id;
    };
    sql::Stmt where(db, "SELECT d.path, c.line_from FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ?");
    std::vector<Row> rows;
    for (const auto& [rank, id] : found) {
        where.bind(1, id);
        if (where.step()) rows.push_back({rank, where.text(0), where.int64(1), id});
        where.reset();
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.rank != b.rank) return a.rank < b.rank;
        if (a.path != b.path) return a.path < b.path;
        return a.line < b.line;
    });
    std::vector<Ranked> out;
    for (std::size_t i = 0; i < rows.size() && i < k; ++i) out.push_back({rows[i].id, -rows[i].rank});
    return out;
}

std::vector<Ranked> run(sql::Db& db, const std::string& match, const Scope& scope, std::size_t k) {
    std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> runs;
    if (scope.small && (runs = scope_ranges(db, scope))) return within_ranges(db, match, *runs, k);
    bool complete = false;
    auto out = top_then_filter(db, match, scope, k, complete);
    if (complete) return out;
    if (!scope.small && (runs = scope_ranges(db, scope))) return within_ranges(db, match, *runs, k);
    return filter_then_top(db, match, scope, k);
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
