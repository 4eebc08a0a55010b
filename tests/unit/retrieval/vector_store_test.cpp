// Unit tests of the vector engine's store (lib/retrieval/vector_store.hpp): the int8 first pass
// with exact rescoring answers exactly what a full float scan answers — the same chunks, in the
// same order, with the same scores — over random vectors with duplicates and near-ties, with
// filters, and after documents change and are reread one by one.
#define BOOST_TEST_MODULE retrieval_vector_store
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"
#include "retrieval/schema.hpp"
#include "retrieval/vector_math.hpp"
#include "retrieval/vector_store.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>

using namespace coffer::retrieval;
using coffer::test::TempDir;

namespace {

std::vector<float> random_unit(std::mt19937& rng, std::size_t dim) {
    std::normal_distribution<float> g;
    std::vector<float> v(dim);
    for (auto& x : v) x = g(rng);
    normalise(v);
    return v;
}

// An index with `docs` documents of `per_doc` chunks in collection "c" (and one small
// collection "small"), every chunk with a vector of model "m"; the vectors are kept here too.
struct Store {
    TempDir dir{"vector-store"};
    std::unique_ptr<sql::Db> db = open_index(dir / "index.db");
    std::map<std::int64_t, std::vector<float>> vec;      // chunk id → vector
    std::map<std::int64_t, std::string> path_of_chunk;   // chunk id → path
    std::map<std::int64_t, std::string> collection_of;   // chunk id → collection
    std::map<std::int64_t, std::int64_t> doc_of_chunk;
    std::int64_t next_chunk = 1;

    std::int64_t add_doc(const std::string& collection, const std::string& path, std::vector<std::vector<float>> vs) {
        sql::Stmt d(*db, "INSERT INTO documents (collection, path, title, sha256, mtime_ns, size, chunks) VALUES (?,?,'t','x',0,0,?)");
        d.bind(1, collection).bind(2, path).bind(3, static_cast<std::int64_t>(vs.size())).run();
        std::int64_t doc = db->last_rowid();
        put_chunks(doc, collection, path, std::move(vs));
        return doc;
    }
    void put_chunks(std::int64_t doc, const std::string& collection, const std::string& path,
                    std::vector<std::vector<float>> vs) {
        sql::Stmt c(*db, "INSERT INTO chunks (id, doc_id, seq, heading, line_from, line_to, text, embed_sha) VALUES (?,?,?,'',1,1,'',?)");
        sql::Stmt v(*db, "INSERT OR REPLACE INTO vectors (sha, model, dim, vec) VALUES (?, 'm', ?, ?)");
        for (std::size_t i = 0; i < vs.size(); ++i) {
            std::int64_t id = next_chunk++;
            std::string sha = "sha" + std::to_string(id);
            c.bind(1, id).bind(2, doc).bind(3, static_cast<std::int64_t>(i)).bind(4, sha).run();
            v.bind(1, sha).bind(2, static_cast<std::int64_t>(vs[i].size())).bind_blob(3, vs[i].data(), vs[i].size() * sizeof(float)).run();
            vec[id] = vs[i];
            path_of_chunk[id] = path;
            collection_of[id] = collection;
            doc_of_chunk[id] = doc;
        }
    }
    void remove_doc_chunks(std::int64_t doc) {
        sql::Stmt del(*db, "DELETE FROM chunks WHERE doc_id = ?");
        del.bind(1, doc).run();
        for (auto it = doc_of_chunk.begin(); it != doc_of_chunk.end();) {
            if (it->second == doc) {
                vec.erase(it->first);
                path_of_chunk.erase(it->first);
                collection_of.erase(it->first);
                it = doc_of_chunk.erase(it);
            } else {
                ++it;
            }
        }
    }

    // The full float scan: every admitted chunk scored by dot(), best first, ties by chunk id.
    std::vector<Ranked> brute(const Scope& scope, const std::vector<float>& q, std::size_t k) const {
        std::vector<Ranked> all;
        for (const auto& [id, v] : vec)
            if (scope.admits(collection_of.at(id), path_of_chunk.at(id)) && v.size() == q.size())
                all.push_back({id, dot(q.data(), v.data(), q.size())});
        std::sort(all.begin(), all.end(), [](const Ranked& a, const Ranked& b) {
            return a.score != b.score ? a.score > b.score : a.chunk_id < b.chunk_id;
        });
        if (all.size() > k) all.resize(k);
        return all;
    }
};

void same(const std::vector<Ranked>& got, const std::vector<Ranked>& want) {
    BOOST_TEST_REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        BOOST_TEST(got[i].chunk_id == want[i].chunk_id);
        BOOST_TEST(got[i].score == want[i].score);  // bit for bit: the same dot() on the same floats
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(int8_first_pass_answers_exactly_what_a_float_scan_answers) {
    for (std::size_t dim : {384u, 20u}) {  // 20: codes padded to 32
        Store s;
        std::mt19937 rng(static_cast<unsigned>(dim));
        std::vector<std::vector<float>> base;
        for (int i = 0; i < 40; ++i) base.push_back(random_unit(rng, dim));
        for (int d = 0; d < 300; ++d) {
            std::vector<std::vector<float>> vs;
            for (int c = 0; c < 6; ++c) {
                auto v = random_unit(rng, dim);
                if (c % 3 == 0) v = base[rng() % base.size()];  // exact duplicates: tied scores
                if (c % 3 == 1) {                               // near-duplicates: scores a hair apart
                    v = base[rng() % base.size()];
                    v[rng() % dim] += 1e-4f;
                    normalise(v);
                }
                vs.push_back(std::move(v));
            }
            s.add_doc("c", (d % 2 ? "a/" : "b/") + std::to_string(d) + ".md", std::move(vs));
        }
        s.add_doc("small", "one.md", {random_unit(rng, dim), base[0]});
        VectorStore store;
        for (int i = 0; i < 60; ++i) {
            auto q = i % 2 ? base[rng() % base.size()] : random_unit(rng, dim);
            for (std::size_t k : {1u, 10u, 50u, 5000u}) {
                Scope all{{"c"}, ""};
                same(store.search(*s.db, all, "m", q, k), s.brute(all, q, k));
                Scope prefixed{{"c"}, "a/"};
                same(store.search(*s.db, prefixed, "m", q, k), s.brute(prefixed, q, k));
                Scope both{{"c", "small"}, ""};
                same(store.search(*s.db, both, "m", q, k), s.brute(both, q, k));
            }
        }
        Scope small{{"small"}, ""};
        BOOST_TEST(store.search(*s.db, small, "m", base[0], 10).size() == 2u);  // filtered first: never empty
    }
}

BOOST_AUTO_TEST_CASE(changed_documents_are_reread_alone_and_answers_stay_exact) {
    Store s;
    std::mt19937 rng(7);
    std::vector<std::int64_t> docs;
    for (int d = 0; d < 200; ++d) {
        std::vector<std::vector<float>> vs;
        for (int c = 0; c < 4; ++c) vs.push_back(random_unit(rng, 64));
        docs.push_back(s.add_doc("c", std::to_string(d) + ".md", std::move(vs)));
    }
    VectorStore store;
    Scope all{{"c"}, ""};
    auto q = random_unit(rng, 64);
    same(store.search(*s.db, all, "m", q, 20), s.brute(all, q, 20));
    BOOST_TEST(store.count(*s.db, "c", "m") == 800u);

    // Rewrite some documents (new chunks and vectors), empty others, add new ones; tell the store.
    std::vector<std::int64_t> changed;
    for (int round = 0; round < 30; ++round) {
        std::int64_t doc = docs[rng() % docs.size()];
        s.remove_doc_chunks(doc);
        std::vector<std::vector<float>> vs;
        for (std::size_t c = 0, n = rng() % 5; c < n; ++c) vs.push_back(random_unit(rng, 64));
        vs.push_back(q);  // a chunk that must now rank first
        s.put_chunks(doc, "c", std::to_string(doc - 1) + ".md", std::move(vs));
        changed.push_back(doc);
        store.changed(changed);
        changed.clear();
        auto q2 = random_unit(rng, 64);
        same(store.search(*s.db, all, "m", q2, 15), s.brute(all, q2, 15));
        same(store.search(*s.db, all, "m", q, 15), s.brute(all, q, 15));
    }
    docs.push_back(s.add_doc("c", "new.md", {random_unit(rng, 64)}));
    store.changed({docs.back()});
    BOOST_TEST(store.count(*s.db, "c", "m") == s.vec.size());
    same(store.search(*s.db, all, "m", q, 40), s.brute(all, q, 40));
    // A fresh store (a full load) answers the same as the one updated document by document.
    VectorStore fresh;
    same(fresh.search(*s.db, all, "m", q, 40), store.search(*s.db, all, "m", q, 40));
}
