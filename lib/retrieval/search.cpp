// Index::search: validation, the engines by mode, the degraded paths, and the freshness check
// that keeps hits pointing at text that is on disk now (see index.hpp).
#include "retrieval/files.hpp"
#include "retrieval/fusion.hpp"
#include "retrieval/grep.hpp"
#include "retrieval/index_impl.hpp"
#include "retrieval/keyword.hpp"
#include "retrieval/snippet.hpp"
#include "retrieval/validate.hpp"
#include "retrieval/vector_math.hpp"

#include <algorithm>
#include <future>
#include <optional>

namespace coffer::retrieval {
namespace {

// How deep each list goes before fusion: deep enough that a chunk ranked well by one engine
// and modestly by the other still meets itself.
std::size_t fusion_depth(int top_k) { return std::max<std::size_t>(50, static_cast<std::size_t>(top_k) * 3); }

class Hydrator {
public:
    explicit Hydrator(sql::Db& db)
        : st_(db,
              "SELECT d.collection, d.path, d.title, c.heading, c.line_from, c.line_to, c.text FROM chunks c "
              "JOIN documents d ON d.id = c.doc_id WHERE c.id = ?") {}

    std::optional<Hit> hit(std::int64_t chunk_id, double score, const std::string& engine, const std::string& query) {
        st_.bind(1, chunk_id);
        std::optional<Hit> h;
        if (st_.step()) {
            h = Hit{st_.text(0), st_.text(1), st_.text(2), st_.text(3), static_cast<int>(st_.int64(4)),
                    static_cast<int>(st_.int64(5)), score, engine, make_snippet(st_.text_view(6), query)};
        }
        st_.reset();
        return h;
    }

private:
    sql::Stmt st_;
};

// Best first; equal scores in path and line order, so a rebuilt index answers identically.
void order_by_score(std::vector<Hit>& hits) {
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.collection != b.collection) return a.collection < b.collection;
        if (a.path != b.path) return a.path < b.path;
        return a.line_from < b.line_from;
    });
}

std::vector<Hit> hydrate(sql::Db& db, const std::vector<Ranked>& ranked, const char* engine, const Query& q) {
    Hydrator h(db);
    std::vector<Hit> hits;
    for (const auto& r : ranked)
        if (auto hit = h.hit(r.chunk_id, r.score, engine, q.text)) hits.push_back(std::move(*hit));
    order_by_score(hits);
    return hits;
}

std::string key_of(const Hit& h) { return h.collection + '\n' + h.path; }

// The query's vector, or the reason there is none (no embedder, a failing endpoint).
std::optional<std::vector<float>> embed_query(Embedder* embedder, const std::string& text, std::string& reason) {
    if (!embedder) {
        reason = "no embeddings configured: keyword results instead";
        return std::nullopt;
    }
    try {
        auto v = embedder->embed({text});
        if (v.size() == 1 && normalise(v[0])) return std::move(v[0]);
        reason = "the embeddings endpoint returned no usable vector: keyword results instead";
    } catch (const Error& e) {
        reason = std::string(e.what()) + ": keyword results instead";
    }
    return std::nullopt;
}

}  // namespace

Answer Index::Impl::answer(const Query& q, const std::vector<Collection>& roots, Embedder* embedder) {
    Scope scope;
    for (const auto& c : roots) scope.collections.push_back(c.name);
    scope.path_prefix = q.path_prefix;
    {
        const auto& held = held_collections();
        std::int64_t total = 0, in_scope = 0;
        bool all = true;
        for (const auto& [name, chunks] : held) {
            total += chunks;
            bool asked = std::find(scope.collections.begin(), scope.collections.end(), name) != scope.collections.end();
            if (asked) in_scope += chunks;
            all = all && asked;
        }
        scope.whole_index = all && scope.path_prefix.empty();
        scope.small = !scope.whole_index && in_scope * 4 <= total;
    }
    const auto k = static_cast<std::size_t>(q.top_k);
    Answer a;
    if (q.mode == Mode::grep) {
        a.hits = grep_search(*db, q, roots);
        return a;
    }
    if (q.mode == Mode::keyword) {
        a.hits = hydrate(*db, keyword_search(*db, q.text, scope, k), "keyword", q);
        return a;
    }

    // The vector engine's list, or the reason there is none (then: keyword results, degraded).
    const std::string model = embedder ? embedder->model_id() : std::string();
    std::string reason;
    auto vector_list = [&](std::size_t n) -> std::optional<std::vector<Ranked>> {
        auto qv = embed_query(embedder, q.text, reason);
        if (!qv) return std::nullopt;
        if (vectors.rows_of_dimension(scope, model, qv->size()) == 0) {
            reason = "no vectors for " + model + " in these collections yet: keyword results instead";
            return std::nullopt;
        }
        return vectors.search(scope, model, *qv, n);
    };
    // The stored vectors are brought up to date here: that reads the index, this thread's.
    const std::size_t stored = embedder ? vectors.prepare(*db, scope, model) : 0;
    const auto depth = fusion_depth(q.top_k);
    std::optional<std::vector<Ranked>> vec;
    std::vector<Ranked> kw;
    if (q.mode == Mode::hybrid && stored > 0) {
        // Embedding the query (an HTTP call for a real endpoint) and the vector scan run on a
        // second thread while this one runs the keyword search; neither touches the other's data.
        auto pending = std::async(std::launch::async, vector_list, depth);
        kw = keyword_search(*db, q.text, scope, depth);
        vec = pending.get();
    } else {
        vec = vector_list(q.mode == Mode::vector ? k : depth);
    }
    if (!vec) {
        a.degraded = true;
        a.degraded_reason = reason;
        a.hits = hydrate(*db, keyword_search(*db, q.text, scope, k), "keyword", q);
        return a;
    }
    if (q.mode == Mode::vector) {
        a.hits = hydrate(*db, *vec, "vector", q);
        return a;
    }
    auto fused = fuse_rrf(kw, *vec, k);
    Hydrator h(*db);
    for (const auto& f : fused)
        if (auto hit = h.hit(f.chunk_id, f.score, f.engine, q.text)) a.hits.push_back(std::move(*hit));
    return a;
}

std::set<std::string> Index::Impl::stale_files(const std::vector<Hit>& hits, const std::vector<Collection>& roots,
                                               bool refresh) {
    std::set<std::string> seen, stale;
    sql::Stmt find(*db, "SELECT mtime_ns, size FROM documents WHERE collection = ? AND path = ?");
    for (const auto& h : hits) {
        if (!seen.insert(key_of(h)).second) continue;
        auto root = std::find_if(roots.begin(), roots.end(), [&](const Collection& c) { return c.name == h.collection; });
        if (root == roots.end()) continue;
        auto info = stat_markdown(root->root, h.path);
        find.bind(1, h.collection).bind(2, h.path);
        bool fresh = info && find.step() && find.int64(0) == info->mtime_ns && find.int64(1) == info->size;
        find.reset();
        if (fresh) continue;
        stale.insert(key_of(h));
        if (refresh) refresh_file(*root, h.path);
    }
    return stale;
}

Answer Index::search(const Query& q, const std::vector<Collection>& collections, Embedder* embedder) {
    auto roots = validate_query(q, collections);
    if (roots.empty()) return {};  // no collection named: nothing to search, never "everything"
    impl_->notice_outside_writes();
    Answer a = impl_->answer(q, roots, embedder);
    if (impl_->syncing) {  // between a sync's batches: what changed is left out, not refreshed
        auto stale = impl_->stale_files(a.hits, roots, false);
        std::erase_if(a.hits, [&](const Hit& h) { return stale.count(key_of(h)) > 0; });
        return a;
    }
    if (impl_->stale_files(a.hits, roots, true).empty()) return a;
    // Some hit's file changed or vanished: it is re-indexed now, and the search runs once more.
    // Whatever changed again meanwhile is left out rather than shown with lines that are gone.
    a = impl_->answer(q, roots, embedder);
    auto still = impl_->stale_files(a.hits, roots, false);
    std::erase_if(a.hits, [&](const Hit& h) { return still.count(key_of(h)) > 0; });
    return a;
}

}  // namespace coffer::retrieval
