// Unit tests of retrieval::Index over real Markdown files in a temporary folder, a real SQLite
// file and the real ripgrep: sync, the four engines, freshness, rebuild, validation, degraded
// answers and the collection filter of the vector engine.
#define BOOST_TEST_MODULE retrieval_index
#include <boost/test/unit_test.hpp>

#include "bag_of_words.hpp"
#include "temp_dir.hpp"
#include "retrieval/index.hpp"

#include <sqlite3.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

using namespace coffer::retrieval;
using coffer::test::BagOfWordsEmbedder;
using coffer::test::TempDir;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::vector<std::string> lines_of(const fs::path& p) {
    std::ifstream in(p);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// A folder "kb" with a few documents, an index file next to it.
struct Fixture {
    TempDir dir{"retrieval"};
    Collection kb{"kb", dir / "kb"};
    fs::path db = dir / "index.db";
    std::unique_ptr<Index> index;

    Fixture() {
        write(kb.root / "setup.md",
              "---\ntitle: Setup Guide\n---\n# Install\n\n## Debian\nRun apt install coffer on Debian.\n\n"
              "## Configure\nEdit the proxy settings in config.toml to configure the flux capacitor.\n");
        write(kb.root / "notes/cjk.md", "# 数据库\n\n数据库连接池的配置方法很重要。\n\n另外一段没有关系的文字。\n");
        write(kb.root / "notes/grep.md", "# Flags\n\n-v prints the version\nthe axb token\nthe a.b token\n");
        write(kb.root / "ops/deploy.md", "# Deploy\n\nDeploy with the release pipeline; rollback is manual.\n");
        index = std::make_unique<Index>(db);
        index->sync(kb);
    }

    Answer search(const std::string& text, Mode mode = Mode::keyword, Embedder* e = nullptr, int k = 10) {
        Query q;
        q.text = text;
        q.collections = {"kb"};
        q.mode = mode;
        q.top_k = k;
        return index->search(q, {kb}, e);
    }
};

bool has_path(const Answer& a, const std::string& path) {
    return std::any_of(a.hits.begin(), a.hits.end(), [&](const Hit& h) { return h.path == path; });
}

// What a person sees of an answer, for comparing two indexes.
std::string render(const Answer& a) {
    std::ostringstream out;
    for (const auto& h : a.hits)
        out << h.path << ':' << h.line_from << '-' << h.line_to << ' ' << h.engine << ' ' << h.score << ' '
            << h.heading << " | " << h.snippet << '\n';
    return out.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(syncing)

BOOST_AUTO_TEST_CASE(indexes_counts_and_skips_hidden_and_escaping_symlinks) {
    Fixture f;
    write(f.kb.root / ".obsidian/x.md", "# hidden secretword\n");
    write(f.dir / "outside/o.md", "# outside secretword\n");
    fs::create_symlink(f.dir / "outside/o.md", f.kb.root / "link.md");
    fs::create_symlink(f.kb.root / "ops/deploy.md", f.kb.root / "inside-link.md");
    write(f.kb.root / "readme.txt", "secretword\n");
    auto s = f.index->sync(f.kb);
    BOOST_TEST(s.added == 1u);  // inside-link.md only
    BOOST_TEST(s.unchanged == 4u);
    BOOST_TEST(f.search("secretword").hits.empty());
    auto st = f.index->stats("kb");
    BOOST_TEST(st.documents == 5u);
    BOOST_TEST(f.index->check(f.kb).empty());
}

BOOST_AUTO_TEST_CASE(resync_after_changes) {
    Fixture f;
    write(f.kb.root / "new.md", "# New\nfresh words\n");
    fs::remove(f.kb.root / "ops/deploy.md");
    write(f.kb.root / "setup.md", "# Setup\nchanged content entirely\n");
    auto c = f.index->check(f.kb);
    BOOST_TEST(c.size() == 3u);
    auto s = f.index->sync(f.kb);
    BOOST_TEST(s.added == 1u);
    BOOST_TEST(s.updated == 1u);
    BOOST_TEST(s.removed == 1u);
    BOOST_TEST(s.unchanged == 2u);
    BOOST_TEST(f.index->check(f.kb).empty());
    BOOST_TEST(f.search("rollback").hits.empty());
    BOOST_TEST(has_path(f.search("fresh words"), "new.md"));
}

BOOST_AUTO_TEST_CASE(delete_index_and_rebuild_gives_identical_results) {
    Fixture f;
    std::vector<std::string> queries = {"install", "proxy settings", "数据库", "how do I configure the proxy?", "token"};
    std::vector<std::string> before;
    for (auto& q : queries) before.push_back(render(f.search(q)));
    f.index.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(f.db.string() + suffix);
    f.index = std::make_unique<Index>(f.db);
    BOOST_TEST(f.search("install").hits.empty());
    f.index->sync(f.kb);
    for (std::size_t i = 0; i < queries.size(); ++i) BOOST_TEST(render(f.search(queries[i])) == before[i]);
    BOOST_TEST(!before[0].empty());
}

// A search made between a bulk sync's batches (what the plugins' index worker does for queued
// searches) sees the batches committed so far, drops a hit whose file changed since, and leaves
// the sync's own bookkeeping alone: the changed file is still indexed when the sync ends.
BOOST_AUTO_TEST_CASE(searches_between_batches_see_committed_batches_and_leave_the_sync_alone) {
    Fixture f;
    const std::size_t n = 1200;  // three batches of the sync (500 files each)
    for (std::size_t i = 0; i < n; ++i)
        write(f.kb.root / "bulk" / ("b" + std::to_string(10000 + i) + ".md"),
              "# Bulk " + std::to_string(i) + "\n\nmarmalade uniq" + std::to_string(i) + "x\n");
    std::vector<std::size_t> documents_seen, marmalade_hits;
    std::string edited;
    bool edited_hit = true;
    auto s = f.index->sync(f.kb, {}, [&] {
        documents_seen.push_back(f.index->stats("kb").documents);
        auto a = f.search("marmalade", Mode::keyword, nullptr, 5);
        marmalade_hits.push_back(a.hits.size());
        if (edited.empty() && !a.hits.empty()) {
            edited = a.hits.front().path;  // indexed in a batch already: change it under the sync
            write(f.kb.root / edited, "# Bulk edited\n\nquince " + std::string(200, 'q') + "\n");
            edited_hit = has_path(f.search("marmalade", Mode::keyword, nullptr, 50), edited);
        }
    });
    BOOST_TEST(documents_seen.size() == 2u);  // after the first and the second batch
    BOOST_TEST(documents_seen.at(0) < n + 4);
    BOOST_TEST(documents_seen.at(0) >= 500u);
    BOOST_TEST(marmalade_hits.at(0) == 5u);
    BOOST_REQUIRE(!edited.empty());
    BOOST_TEST(!edited_hit);  // changed since it was indexed: left out, never shown with gone text
    BOOST_TEST(s.added == n);
    auto st = f.index->stats("kb");
    BOOST_TEST(st.documents == n + 4);  // the edited file was not dropped by the sync
    auto diff = f.index->check(f.kb);
    BOOST_TEST(diff.size() == 1u);
    BOOST_TEST(diff.at(0) == "changed: " + edited);
    // After the sync, a search that meets it refreshes it as usual (so does the plugins' watcher).
    BOOST_TEST(!has_path(f.search("marmalade", Mode::keyword, nullptr, 50), edited));
    BOOST_TEST(f.index->check(f.kb).empty());
    BOOST_TEST(has_path(f.search("quince"), edited));
}

// Closes the fixture's index, marks its file as written by schema version `v`, opens it again.
void reopen_as_version(Fixture& f, int v) {
    f.index.reset();
    sqlite3* db = nullptr;
    sqlite3_open(f.db.c_str(), &db);
    sqlite3_exec(db, ("PRAGMA user_version = " + std::to_string(v)).c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
    f.index = std::make_unique<Index>(f.db);
}

BOOST_AUTO_TEST_CASE(other_schema_version_is_rebuilt) {
    Fixture f;
    reopen_as_version(f, 999);
    BOOST_TEST(f.index->stats("kb").documents == 0u);
    BOOST_TEST(f.index->sync(f.kb).added == 4u);
}

BOOST_AUTO_TEST_CASE(a_rebuild_for_another_version_keeps_the_vectors) {
    Fixture f;
    BagOfWordsEmbedder bow;
    const std::size_t embedded = f.index->embed_pending("kb", bow);
    BOOST_TEST(embedded > 0u);
    const std::string before = render(f.search("release pipeline", Mode::vector, &bow));
    reopen_as_version(f, 1);
    BOOST_TEST(f.index->stats("kb").documents == 0u);
    BOOST_TEST(f.index->sync(f.kb).added == 4u);
    bow.texts_embedded = 0;
    BOOST_TEST(f.index->embed_pending("kb", bow) == 0u);  // every text already has its vector
    BOOST_TEST(bow.texts_embedded == 0u);
    BOOST_TEST(f.index->stats("kb").vectors == embedded);
    BOOST_TEST(render(f.search("release pipeline", Mode::vector, &bow)) == before);
    BOOST_TEST(!fs::exists(f.db.string() + ".old"));
}

BOOST_AUTO_TEST_CASE(killed_mid_sync_is_completed_by_the_next) {
    TempDir dir("retrieval-kill");
    Collection c{"big", dir / "big"};
    for (int i = 0; i < 3000; ++i)
        write(c.root / ("d" + std::to_string(i) + ".md"),
              "# Doc " + std::to_string(i) + "\n\nword" + std::to_string(i) + " common text\n");
    pid_t pid = ::fork();
    if (pid == 0) {
        Index idx(dir / "i.db");
        // Dies at the first report after a batch was committed (sync reports every committed
        // batch, whatever the clock says): some files are in, the rest are not.
        idx.sync(c, [](std::size_t done, std::size_t total) {
            if (done > 0 && done < total) ::kill(::getpid(), SIGKILL);
        });
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    BOOST_REQUIRE(WIFSIGNALED(status));
    Index idx(dir / "i.db");
    std::size_t before = idx.stats("big").documents;
    BOOST_TEST(before < 3000u);
    auto s = idx.sync(c);
    BOOST_TEST(s.added == 3000u - before);
    BOOST_TEST(idx.stats("big").documents == 3000u);
    BOOST_TEST(idx.check(c).empty());
    Query q;
    q.text = "word2999";
    q.collections = {"big"};
    auto a = idx.search(q, {c}, nullptr);
    BOOST_REQUIRE_EQUAL(a.hits.size(), 1u);
    BOOST_TEST(a.hits[0].path == "d2999.md");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(keyword_engine)

BOOST_AUTO_TEST_CASE(small_collection_in_a_large_index_ranks_like_the_whole_index) {
    // The keyword engine searches a small scope within its own chunks' rowid ranges; the scores
    // and order must be those of the index-wide ranking, filtered.
    TempDir dir("retrieval-kw-scope");
    Collection big{"big", dir / "big"}, small{"small", dir / "small"};
    for (int d = 0; d < 80; ++d)  // ranked above every small note (the title weighs 4)
        write(big.root / ("b" + std::to_string(d) + ".md"),
              "# Garden " + std::to_string(d) + "\n\ngarden tomato watering " + std::string(d % 7, 'x') + "\n");
    for (int d = 0; d < 12; ++d) {
        std::string text = "# Note " + std::to_string(d) + "\n\n";
        for (int i = 0; i <= d % 4; ++i) text += "garden ";
        text += "hose\n\n## Other\n\nnothing here\n";
        write(small.root / ("sub" + std::to_string(d % 2) + "/n" + std::to_string(d) + ".md"), text);
    }
    Index idx(dir / "i.db");
    idx.sync(small);  // ids of the small collection first, then the big one, then an edit:
    idx.sync(big);    // the small scope is two runs of ids
    write(small.root / "sub0/n0.md", "# Note 0\n\ngarden garden garden hose\n");
    idx.sync(small);
    auto search = [&](std::vector<std::string> cols, std::string prefix, int k) {
        Query q;
        q.text = "garden";
        q.collections = std::move(cols);
        q.path_prefix = std::move(prefix);
        q.top_k = k;
        return idx.search(q, {big, small}, nullptr);
    };
    auto everything = search({"big", "small"}, "", 100);
    for (std::string prefix : {"", "sub1/"}) {
        std::vector<Hit> expected;
        for (auto& h : everything.hits)
            if (h.collection == "small" && h.path.rfind(prefix, 0) == 0) expected.push_back(h);
        BOOST_REQUIRE(expected.size() >= 5u);
        expected.resize(5);
        auto got = search({"small"}, prefix, 5);
        BOOST_REQUIRE_EQUAL(got.hits.size(), 5u);
        for (std::size_t i = 0; i < 5; ++i) {
            BOOST_TEST(got.hits[i].path == expected[i].path);
            BOOST_TEST(got.hits[i].line_from == expected[i].line_from);
            BOOST_TEST(got.hits[i].score == expected[i].score);
        }
    }
}

BOOST_AUTO_TEST_CASE(frontmatter_title_heading_and_lines) {
    Fixture f;
    auto a = f.search("apt install");
    BOOST_REQUIRE(!a.hits.empty());
    const Hit& h = a.hits[0];
    BOOST_TEST(h.path == "setup.md");
    BOOST_TEST(h.title == "Setup Guide");
    BOOST_TEST(h.heading == "Install > Debian");
    BOOST_TEST(h.line_from == 6);
    BOOST_TEST(h.line_to == 7);
    BOOST_TEST(h.engine == "keyword");
    BOOST_TEST(h.score > 0);
    BOOST_TEST(h.snippet.find("apt install") != std::string::npos);
    auto lines = lines_of(f.kb.root / "setup.md");
    BOOST_TEST(lines[h.line_from - 1] == "## Debian");
}

BOOST_AUTO_TEST_CASE(and_falls_back_to_or_of_non_stop_words) {
    Fixture f;
    // "how", "do", "I" appear nowhere: AND finds nothing, the OR of the rest finds the doc.
    auto a = f.search("How do I configure the flux capacitor?");
    BOOST_REQUIRE(!a.hits.empty());
    BOOST_TEST(a.hits[0].path == "setup.md");
    BOOST_TEST(a.hits[0].heading == "Install > Configure");
    // AND first: both words in one chunk rank that chunk, not an OR spread.
    auto b = f.search("release pipeline");
    BOOST_REQUIRE_EQUAL(b.hits.size(), 1u);
    BOOST_TEST(b.hits[0].path == "ops/deploy.md");
}

BOOST_AUTO_TEST_CASE(operators_and_punctuation_never_error) {
    Fixture f;
    for (std::string q : {"?", "\"", "*", "NEAR(", "NEAR(proxy", "proxy AND", "OR", "-proxy", "a:b", "(((", "^x",
                          "\"unbalanced", "proxy*", "😀", "col:umn", "{x}", "1.0.21", "AND OR NOT"}) {
        BOOST_CHECK_NO_THROW(f.search(q));
    }
    BOOST_TEST(has_path(f.search("proxy?!"), "setup.md"));
    BOOST_TEST(has_path(f.search("\"proxy\""), "setup.md"));
    BOOST_TEST(has_path(f.search("NEAR(proxy"), "setup.md"));
}

BOOST_AUTO_TEST_CASE(chinese_query_finds_chinese_text) {
    Fixture f;
    auto a = f.search("连接池");
    BOOST_REQUIRE(!a.hits.empty());
    BOOST_TEST(a.hits[0].path == "notes/cjk.md");
    BOOST_TEST(a.hits[0].heading == "数据库");
    BOOST_TEST(a.hits[0].snippet.find("连接池") != std::string::npos);
    BOOST_TEST(has_path(f.search("池"), "notes/cjk.md"));           // one character
    BOOST_TEST(f.search("池塘").hits.empty());                       // a bigram not in the text
    BOOST_TEST(has_path(f.search("配置方法是什么"), "notes/cjk.md")); // OR fallback over bigrams
}

BOOST_AUTO_TEST_CASE(path_prefix_and_collections_filter) {
    Fixture f;
    Query q;
    q.text = "the";
    q.collections = {"kb"};
    q.path_prefix = "ops/";
    auto a = f.index->search(q, {f.kb}, nullptr);
    BOOST_REQUIRE(!a.hits.empty());
    for (auto& h : a.hits) BOOST_TEST(h.path.rfind("ops/", 0) == 0u);
    q.collections = {};
    BOOST_TEST(f.index->search(q, {f.kb}, nullptr).hits.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(freshness)

BOOST_AUTO_TEST_CASE(edit_outside_then_search_shows_current_lines) {
    Fixture f;
    BOOST_REQUIRE(has_path(f.search("rollback"), "ops/deploy.md"));
    // Three lines inserted above: the indexed line range is now wrong until refreshed.
    write(f.kb.root / "ops/deploy.md", "# Deploy\n\nfirst\n\nsecond\n\n## Rollback\n\nrollback is manual now.\n");
    auto a = f.search("rollback");
    BOOST_REQUIRE_EQUAL(a.hits.size(), 1u);
    auto lines = lines_of(f.kb.root / "ops/deploy.md");
    BOOST_TEST(a.hits[0].line_from == 7);
    BOOST_TEST(a.hits[0].line_to == 9);
    BOOST_TEST(lines[static_cast<std::size_t>(a.hits[0].line_to - 1)] == "rollback is manual now.");
    BOOST_TEST(a.hits[0].heading == "Deploy > Rollback");
}

BOOST_AUTO_TEST_CASE(vanished_file_is_not_returned) {
    Fixture f;
    BOOST_REQUIRE(has_path(f.search("rollback"), "ops/deploy.md"));
    fs::remove(f.kb.root / "ops/deploy.md");
    BOOST_TEST(f.search("rollback").hits.empty());
    BOOST_TEST(f.index->stats("kb").documents == 3u);  // and the index forgot it
}

BOOST_AUTO_TEST_CASE(refresh_one_file) {
    Fixture f;
    write(f.kb.root / "added.md", "# Added\nzebra\n");
    f.index->refresh(f.kb, "added.md");
    BOOST_TEST(f.index->stats("kb").documents == 5u);
    BOOST_CHECK_THROW(f.index->refresh(f.kb, "../x.md"), Error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(grep_engine)

BOOST_AUTO_TEST_CASE(literal_by_default_regex_when_asked) {
    Fixture f;
    auto lit = f.search("a.b", Mode::grep);
    BOOST_REQUIRE_EQUAL(lit.hits.size(), 1u);
    BOOST_TEST(lit.hits[0].snippet == "the a.b token");
    BOOST_TEST(lit.hits[0].line_from == 5);
    BOOST_TEST(lit.hits[0].line_to == 5);
    BOOST_TEST(lit.hits[0].heading == "Flags");
    BOOST_TEST(lit.hits[0].engine == "grep");
    BOOST_TEST(lit.hits[0].score == 1.0);
    Query q;
    q.text = "a.b";
    q.regex = true;
    q.mode = Mode::grep;
    q.collections = {"kb"};
    auto re = f.index->search(q, {f.kb}, nullptr);
    BOOST_TEST(re.hits.size() == 2u);  // axb and a.b
    q.text = "(unclosed";
    try {
        f.index->search(q, {f.kb}, nullptr);
        BOOST_FAIL("an invalid regex must be refused");
    } catch (const Error& e) {
        BOOST_TEST((e.code() == Error::Code::invalid));
    }
}

BOOST_AUTO_TEST_CASE(pattern_starting_with_dash_is_not_an_option) {
    Fixture f;
    auto a = f.search("-v", Mode::grep);
    BOOST_REQUIRE_EQUAL(a.hits.size(), 1u);
    BOOST_TEST(a.hits[0].path == "notes/grep.md");
    BOOST_TEST(a.hits[0].line_from == 3);
    BOOST_TEST(f.search("--files", Mode::grep).hits.empty());
    auto smart = f.search("DEPLOY", Mode::grep);  // upper case: case-sensitive (smart case)
    BOOST_TEST(smart.hits.empty());
    BOOST_TEST(f.search("deploy", Mode::grep).hits.size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(validation)

BOOST_AUTO_TEST_CASE(bad_queries_are_invalid) {
    Fixture f;
    auto expect_invalid = [&](Query q, const std::string& needle) {
        try {
            f.index->search(q, {f.kb}, nullptr);
            BOOST_ERROR("accepted: " + needle);
        } catch (const Error& e) {
            BOOST_TEST((e.code() == Error::Code::invalid));
            BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos, e.what());
        }
    };
    Query q;
    q.collections = {"kb"};
    q.text = "";
    expect_invalid(q, "empty");
    q.text = std::string(4097, 'a');
    expect_invalid(q, "4096");
    q.text = "bad \xff utf8";
    expect_invalid(q, "UTF-8");
    q.text = "ok";
    q.top_k = 0;
    expect_invalid(q, "top_k");
    q.top_k = 101;
    expect_invalid(q, "top_k");
    q.top_k = 10;
    q.collections = {"nope"};
    expect_invalid(q, "unknown collection 'nope'");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(vector_and_hybrid)

// An embedder that is configured but cannot be reached.
struct DownEmbedder : Embedder {
    std::string model_id() const override { return "down@3"; }
    std::vector<std::vector<float>> embed(const std::vector<std::string>&) override {
        throw Error(Error::Code::unavailable, "embeddings endpoint http://127.0.0.1:9 failed: connection refused");
    }
};

BOOST_AUTO_TEST_CASE(no_embedder_or_failing_one_degrades_to_keyword) {
    Fixture f;
    auto a = f.search("rollback", Mode::vector, nullptr);
    BOOST_TEST(a.degraded);
    BOOST_TEST(!a.degraded_reason.empty());
    BOOST_REQUIRE_EQUAL(a.hits.size(), 1u);
    BOOST_TEST(a.hits[0].engine == "keyword");
    DownEmbedder down;
    auto b = f.search("rollback", Mode::hybrid, &down);
    BOOST_TEST(b.degraded);
    BOOST_TEST(b.degraded_reason.find("connection refused") != std::string::npos);
    BOOST_TEST(b.hits.size() == 1u);
    // Configured, but nothing embedded yet: keyword too, and it says why.
    BagOfWordsEmbedder bow;
    auto c = f.search("rollback", Mode::vector, &bow);
    BOOST_TEST(c.degraded);
    BOOST_TEST(c.degraded_reason.find("no vectors") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(vector_filters_before_ranking) {
    TempDir dir("retrieval-vec");
    Collection big{"big", dir / "big"}, small{"small", dir / "small"};
    // 1,000 documents × 5 sections = 5,000 chunks, all about the query's topic.
    for (int d = 0; d < 1000; ++d) {
        std::string text;
        for (int s = 0; s < 5; ++s)
            text += "# Section " + std::to_string(s) + "\n\ngarden tomato watering schedule " + std::to_string(d) + "\n\n";
        write(big.root / ("b" + std::to_string(d) + ".md"), text);
    }
    write(small.root / "a.md", "# Car\n\nengine oil change\n");
    write(small.root / "b.md", "# Bike\n\nchain grease\n");
    write(small.root / "c.md", "# Boat\n\nhull paint\n");
    Index idx(dir / "i.db");
    BOOST_TEST(idx.sync(big).chunks == 5000u);
    idx.sync(small);
    BagOfWordsEmbedder bow;
    BOOST_TEST(idx.embed_pending("big", bow) > 0u);
    BOOST_TEST(idx.embed_pending("small", bow) == 3u);
    Query q;
    q.text = "garden tomato watering schedule";
    q.mode = Mode::vector;
    q.collections = {"small"};
    q.top_k = 3;
    auto a = idx.search(q, {big, small}, &bow);
    BOOST_TEST(!a.degraded);
    BOOST_REQUIRE_EQUAL(a.hits.size(), 3u);
    for (auto& h : a.hits) {
        BOOST_TEST(h.collection == "small");
        BOOST_TEST(h.engine == "vector");
    }
    q.collections = {"big"};
    q.path_prefix = "b99";
    auto b = idx.search(q, {big, small}, &bow);
    BOOST_REQUIRE_EQUAL(b.hits.size(), 3u);
    for (auto& h : b.hits) BOOST_TEST(h.path.rfind("b99", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(hybrid_shows_engine_scores_not_fusion) {
    Fixture f;
    BagOfWordsEmbedder bow;
    f.index->embed_pending("kb", bow);
    auto v = f.search("release pipeline rollback", Mode::vector, &bow);
    BOOST_REQUIRE(!v.hits.empty());
    BOOST_TEST(v.hits[0].path == "ops/deploy.md");
    BOOST_TEST(v.hits[0].score > 0.3);  // a cosine
    auto h = f.search("release pipeline rollback", Mode::hybrid, &bow);
    BOOST_REQUIRE(!h.hits.empty());
    BOOST_TEST(!h.degraded);
    BOOST_TEST(h.hits[0].path == "ops/deploy.md");
    // Each hit shows the score its engine gave it, never an RRF magnitude.
    auto kw = f.search("release pipeline rollback", Mode::keyword, &bow, 50);
    auto vec = f.search("release pipeline rollback", Mode::vector, &bow, 50);
    auto own_score = [](const Answer& a, const Hit& hit) {
        for (auto& x : a.hits)
            if (x.path == hit.path && x.line_from == hit.line_from) return x.score;
        return -1.0;
    };
    for (auto& hit : h.hits) {
        BOOST_REQUIRE((hit.engine == "keyword" || hit.engine == "vector"));
        BOOST_TEST(hit.score == own_score(hit.engine == "keyword" ? kw : vec, hit));
    }
    BOOST_TEST(h.hits[0].score > 1.0 / 61);
    // The keyword list is not silently empty: hybrid differs from vector-only here.
    BOOST_TEST(render(h) != render(v));
    // Only changed chunks are embedded again after an edit.
    write(f.kb.root / "ops/deploy.md", "# Deploy\n\nDeploy with the release pipeline; rollback is automatic.\n");
    f.index->sync(f.kb);
    bow.texts_embedded = 0;
    BOOST_TEST(f.index->embed_pending("kb", bow) == 1u);
    BOOST_TEST(bow.texts_embedded == 1u);
    // Another model id: everything again, and the old model's vectors are gone.
    BagOfWordsEmbedder other(128, "bow2");
    auto total = f.index->stats("kb").chunks;
    BOOST_TEST(f.index->embed_pending("kb", other) == total);
    auto st = f.index->stats("kb");
    BOOST_TEST(st.embedding_model == "bow2@128");
    BOOST_TEST(st.vectors == total);
}

BOOST_AUTO_TEST_CASE(vectors_kept_in_step_with_edits_answer_like_a_fresh_load) {
    // The in-memory vectors are updated document by document after syncs, refreshes and
    // embeddings; a second Index on the same file loads them whole. Both must answer alike, and
    // the statistics must agree with what a count in SQL gives.
    Fixture f;
    BagOfWordsEmbedder bow;
    for (int i = 0; i < 30; ++i)
        write(f.kb.root / ("many/n" + std::to_string(i) + ".md"),
              "# Note " + std::to_string(i) + "\n\nrelease notes about proxy " + std::to_string(i) + " and the pipeline\n");
    f.index->sync(f.kb);
    f.index->embed_pending("kb", bow);
    const std::vector<std::string> queries = {"release pipeline rollback", "proxy settings", "note 7", "apt install"};
    for (auto& q : queries) f.search(q, Mode::vector, &bow);  // loaded now
    auto check = [&] {
        auto counted = Index(f.db).stats("kb");  // nothing loaded: counted in SQL
        Index fresh(f.db);
        for (Mode m : {Mode::vector, Mode::hybrid})
            for (auto& text : queries) {
                Query q;
                q.text = text;
                q.collections = {"kb"};
                q.mode = m;
                q.top_k = 20;
                BOOST_TEST(render(f.search(text, m, &bow, 20)) == render(fresh.search(q, {f.kb}, &bow)));
            }
        for (const auto& st : {f.index->stats("kb"), fresh.stats("kb")}) {
            BOOST_TEST(st.vectors == counted.vectors);
            BOOST_TEST(st.chunks == counted.chunks);
            BOOST_TEST(st.documents == counted.documents);
            BOOST_TEST(st.embedding_model == counted.embedding_model);
        }
    };
    check();
    write(f.kb.root / "ops/deploy.md", "# Deploy\n\nDeploy with the release pipeline; rollback is automatic.\n\n## More\n\nproxy\n");
    fs::remove(f.kb.root / "many/n3.md");
    write(f.kb.root / "many/n99.md", "# Note 99\n\nrelease proxy\n");
    f.index->sync(f.kb);
    f.index->embed_pending("kb", bow);
    check();
    write(f.kb.root / "many/n5.md", "# Note 5\n\nrewritten apt install notes\n");
    f.index->refresh(f.kb, "many/n5.md");
    BOOST_TEST(f.index->embed_pending("kb", bow) == 1u);
    check();
    // Synced but not embedded yet: the new chunk has no vector, in memory or not.
    write(f.kb.root / "many/n6.md", "# Note 6\n\nsomething else entirely\n");
    f.index->sync(f.kb);
    check();
}

BOOST_AUTO_TEST_SUITE_END()
