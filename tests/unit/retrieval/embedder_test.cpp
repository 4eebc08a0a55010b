// Unit tests of the embeddings client (make_http_embedder) against a stand-in OpenAI-compatible
// server on 127.0.0.1: the wire format, ordering by index, normalisation, retries (429 with
// Retry-After, a 500 storm), secrets kept out of messages, and Index::embed_pending's request
// counts (only changed chunks, everything after a model change).
#define BOOST_TEST_MODULE retrieval_embedder
#include <boost/test/unit_test.hpp>

#include "bag_of_words.hpp"
#include "embedding_server.hpp"
#include "temp_dir.hpp"
#include "retrieval/index.hpp"

#include <chrono>
#include <cmath>
#include <fstream>

using namespace coffer::retrieval;
using coffer::test::EmbeddingServer;
using coffer::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kKey = "sk-test-SECRET-123";

EmbeddingConfig config(const EmbeddingServer& s) {
    EmbeddingConfig c;
    c.base_url = s.base_url();
    c.model = "stand-in";
    c.api_key = kKey;
    c.batch = 4;
    c.max_attempts = 3;
    c.timeout = std::chrono::milliseconds(5000);
    c.backoff = std::chrono::milliseconds(10);
    return c;
}

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_embedder)

BOOST_AUTO_TEST_CASE(wire_format_order_and_normalisation) {
    EmbeddingServer server(32);
    auto cfg = config(server);
    cfg.dimensions = 16;
    auto e = make_http_embedder(cfg);
    BOOST_TEST(e->model_id() == "stand-in@16");
    std::vector<std::string> texts = {"alpha beta", "gamma", "alpha beta", "delta", "epsilon", "zeta"};
    auto v = e->embed(texts);
    BOOST_REQUIRE_EQUAL(v.size(), texts.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        BOOST_REQUIRE_EQUAL(v[i].size(), 16u);
        double n = 0;
        for (float x : v[i]) n += x * x;
        BOOST_TEST(std::abs(n - 1.0) < 1e-4);
        // The server answers in reverse order: the client must place each by its index.
        auto want = coffer::test::bag_of_words(texts[i], 16);
        for (std::size_t k = 0; k < 16; ++k) BOOST_TEST(std::abs(v[i][k] - want[k]) < 1e-5);
    }
    auto reqs = server.requests();
    BOOST_REQUIRE_EQUAL(reqs.size(), 2u);  // batches of 4
    BOOST_TEST(reqs[0].inputs == 4u);
    BOOST_TEST(reqs[1].inputs == 2u);
    BOOST_TEST(reqs[0].authorization == "Bearer " + kKey);
    BOOST_TEST(reqs[0].model == "stand-in");
    BOOST_TEST(reqs[0].dimensions == 16);
}

BOOST_AUTO_TEST_CASE(no_key_no_authorization_header) {
    EmbeddingServer server;
    auto cfg = config(server);
    cfg.api_key.clear();
    make_http_embedder(cfg)->embed({"x"});
    BOOST_TEST(server.requests().at(0).authorization.empty());
}

BOOST_AUTO_TEST_CASE(retry_after_429_is_honoured) {
    EmbeddingServer server;
    server.fail_next({429, "1", "{\"error\":\"slow down\"}"});
    auto e = make_http_embedder(config(server));
    auto t0 = std::chrono::steady_clock::now();
    auto v = e->embed({"hello world"});
    auto waited = std::chrono::steady_clock::now() - t0;
    BOOST_TEST(v.size() == 1u);
    BOOST_TEST(server.request_count() == 2u);
    BOOST_TEST(waited >= std::chrono::milliseconds(950));  // Retry-After: 1, not the 10 ms backoff
}

BOOST_AUTO_TEST_CASE(server_error_storm_is_unavailable_without_the_key) {
    EmbeddingServer server;
    server.fail_always({500, "", "{\"error\":\"boom, your key " + kKey + " is fine\"}"});
    auto e = make_http_embedder(config(server));
    try {
        e->embed({"x"});
        BOOST_FAIL("must fail");
    } catch (const Error& err) {
        BOOST_TEST((err.code() == Error::Code::unavailable));
        std::string msg = err.what();
        BOOST_TEST(msg.find("500") != std::string::npos, msg);
        BOOST_TEST(msg.find(kKey) == std::string::npos, msg);
    }
    BOOST_TEST(server.request_count() == 3u);  // max_attempts
}

BOOST_AUTO_TEST_CASE(client_errors_are_not_retried) {
    EmbeddingServer server;
    server.fail_always({401, "", "{\"error\":\"bad key\"}"});
    BOOST_CHECK_THROW(make_http_embedder(config(server))->embed({"x"}), Error);
    BOOST_TEST(server.request_count() == 1u);
}

BOOST_AUTO_TEST_CASE(unreachable_endpoint_and_bad_urls) {
    EmbeddingConfig c;
    c.base_url = "http://127.0.0.1:1/v1";  // nothing listens on port 1
    c.model = "m";
    c.max_attempts = 2;
    c.backoff = std::chrono::milliseconds(1);
    c.timeout = std::chrono::milliseconds(2000);
    try {
        make_http_embedder(c)->embed({"x"});
        BOOST_FAIL("must fail");
    } catch (const Error& e) {
        BOOST_TEST((e.code() == Error::Code::unavailable));
    }
    for (std::string url : {"ftp://x/v1", "not a url", "http://user:pw@host/v1", "https:///v1"}) {
        c.base_url = url;
        try {
            make_http_embedder(c);
            BOOST_ERROR("accepted " + url);
        } catch (const Error& e) {
            BOOST_TEST((e.code() == Error::Code::invalid));
            BOOST_TEST(std::string(e.what()).find("pw") == std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(embed_pending)

BOOST_AUTO_TEST_CASE(only_changed_chunks_then_model_change_reembeds) {
    EmbeddingServer server(48);
    TempDir dir("retrieval-embed");
    Collection kb{"kb", dir / "kb"};
    write(kb.root / "a.md", "# One\n\napples and pears\n\n# Two\n\nbananas\n\n# Three\n\ncherries\n");
    write(kb.root / "b.md", "# Other\n\nkettle and teapot\n");
    Index idx(dir / "i.db");
    idx.sync(kb);
    auto cfg = config(server);
    auto e = make_http_embedder(cfg);
    BOOST_TEST(idx.embed_pending("kb", *e) == 4u);
    BOOST_TEST(server.request_count() == 1u);  // 4 texts, batch 4
    BOOST_TEST(idx.embed_pending("kb", *e) == 0u);
    BOOST_TEST(server.request_count() == 1u);

    // One section edited: one text embedded, one request.
    write(kb.root / "a.md", "# One\n\napples and pears\n\n# Two\n\nbananas and kiwis\n\n# Three\n\ncherries\n");
    idx.sync(kb);
    BOOST_TEST(idx.embed_pending("kb", *e) == 1u);
    auto reqs = server.requests();
    BOOST_REQUIRE_EQUAL(reqs.size(), 2u);
    BOOST_TEST(reqs[1].inputs == 1u);

    // The vector engine finds the teapot document through the stand-in.
    Query q;
    q.text = "teapot kettle";
    q.mode = Mode::vector;
    q.collections = {"kb"};
    auto a = idx.search(q, {kb}, e.get());
    BOOST_TEST(!a.degraded);
    BOOST_REQUIRE(!a.hits.empty());
    BOOST_TEST(a.hits[0].path == "b.md");
    BOOST_TEST(a.hits[0].engine == "vector");

    // Another dimension is another model id: all four again, old vectors dropped.
    cfg.dimensions = 24;
    auto e24 = make_http_embedder(cfg);
    BOOST_TEST(idx.embed_pending("kb", *e24) == 4u);
    auto st = idx.stats("kb");
    BOOST_TEST(st.embedding_model == "stand-in@24");
    BOOST_TEST(st.vectors == 4u);
    // Searching with the old model now finds no vectors of its own: degraded, not mixed.
    auto old = idx.search(q, {kb}, e.get());
    BOOST_TEST(old.degraded);
}

BOOST_AUTO_TEST_CASE(failing_endpoint_in_search_degrades) {
    EmbeddingServer server;
    TempDir dir("retrieval-embed2");
    Collection kb{"kb", dir / "kb"};
    write(kb.root / "a.md", "# A\n\nkettle\n");
    Index idx(dir / "i.db");
    idx.sync(kb);
    auto e = make_http_embedder(config(server));
    idx.embed_pending("kb", *e);
    server.fail_always({503, "", "{}"});
    Query q;
    q.text = "kettle";
    q.mode = Mode::hybrid;
    q.collections = {"kb"};
    auto a = idx.search(q, {kb}, e.get());
    BOOST_TEST(a.degraded);
    BOOST_TEST(a.degraded_reason.find("503") != std::string::npos, a.degraded_reason);
    BOOST_TEST(a.degraded_reason.find(kKey) == std::string::npos);
    BOOST_REQUIRE_EQUAL(a.hits.size(), 1u);
    BOOST_TEST(a.hits[0].engine == "keyword");
}

BOOST_AUTO_TEST_SUITE_END()
