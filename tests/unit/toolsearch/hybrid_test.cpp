// Hybrid tool search pieces: the text a tool's vector is made from, nearest tools by cosine, the
// fusion with the keyword list (its scores fall with the rank), and a request naming a server.
#include <boost/test/unit_test.hpp>

#include "retrieval/embedder.hpp"
#include "toolsearch/entities.hpp"
#include "toolsearch/hybrid.hpp"
#include "toolsearch/index.hpp"
#include "toolsearch/tokenize.hpp"

#include <algorithm>
#include <cmath>

namespace ts = coffer::toolsearch;

namespace {

// Vectors from a fixed table (texts not in it get the zero-th axis), counting its calls.
class TableEmbedder final : public coffer::retrieval::Embedder {
public:
    std::vector<std::pair<std::string, std::vector<float>>> table;
    int calls = 0;
    std::size_t texts_seen = 0;
    std::string model = "table@3";
    std::string model_id() const override { return model; }
    std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) override {
        ++calls;
        texts_seen += texts.size();
        std::vector<std::vector<float>> out;
        for (auto& t : texts) {
            std::vector<float> v{1, 0, 0};
            for (auto& [prefix, vec] : table)
                if (t.rfind(prefix, 0) == 0) v = vec;
            out.push_back(v);
        }
        return out;
    }
};

ts::ToolText tool(std::string name, std::string description, std::vector<std::string> params = {}) {
    return ts::ToolText{std::move(name), std::move(description), std::move(params), {}, {}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hybrid)

BOOST_AUTO_TEST_CASE(embedding_text_names_server_words_description_and_parameters) {
    auto t = tool("github__create_pull_request", "Open a pull request", {"owner", "head"});
    BOOST_TEST(ts::embedding_text(t) == "github: create pull request. Open a pull request (owner, head)");
    BOOST_TEST(ts::embedding_text(tool("plain-name", "")) == "plain name");
    auto long_text = ts::embedding_text(tool("s__t", std::string(3000, 'x') + "é"));
    BOOST_TEST(long_text.size() <= ts::kMaxEmbeddingText);
    // Cut at a character boundary: a multi-byte character is never split.
    auto cjk = ts::embedding_text(tool("s__t", std::string(997, 'a') + "读取文件"));
    BOOST_TEST(cjk.size() <= ts::kMaxEmbeddingText);
    BOOST_TEST(((static_cast<unsigned char>(cjk.back()) & 0xC0) != 0x80 || cjk.size() < 3));
}

BOOST_AUTO_TEST_CASE(nearest_by_cosine_and_wrong_length_gives_nothing) {
    std::vector<ts::ToolText> tools{tool("a__x", ""), tool("b__y", ""), tool("c__z", "")};
    TableEmbedder e;
    e.table = {{"a: x", {1, 0, 0}}, {"b: y", {0, 1, 0}}, {"c: z", {0, 0.6f, 0.8f}}};
    ts::ToolVectors v(tools, e);
    BOOST_TEST(!v.empty());
    BOOST_TEST(v.dimensions() == 3u);
    BOOST_TEST(v.model() == "table@3");
    BOOST_TEST(e.calls == 1);
    auto hits = v.nearest({0, 0, 1}, 2);
    BOOST_REQUIRE(hits.size() == 2u);
    BOOST_TEST(hits[0].tool == 2u);
    BOOST_TEST(std::fabs(hits[0].score - 0.8) < 1e-6);
    BOOST_TEST(hits[1].tool == 0u);  // 0 and 1 tie at 0: the earlier tool first
    BOOST_TEST(v.nearest({1, 0}, 3).empty());
    BOOST_TEST(ts::ToolVectors().nearest({1, 0, 0}, 3).empty());
}

BOOST_AUTO_TEST_CASE(tools_are_embedded_in_batches_and_a_stop_leaves_no_vectors) {
    std::vector<ts::ToolText> many;
    for (int i = 0; i < 150; ++i) many.push_back(tool("s__t" + std::to_string(i), "a tool"));
    TableEmbedder e;
    ts::ToolVectors all(many, e);
    BOOST_TEST(e.calls == 3);  // 64 + 64 + 22
    BOOST_TEST(all.nearest({1, 0, 0}, 0).size() == 150u);
    int asked = 0;
    ts::ToolVectors stopped(many, e, [&] { return ++asked > 1; });  // stop before the second batch
    BOOST_TEST(stopped.empty());
    BOOST_TEST(e.calls == 4);
}

BOOST_AUTO_TEST_CASE(fusion_orders_by_both_lists_and_scores_fall_with_rank) {
    std::vector<ts::Hit> keyword{{0, 9.0}, {1, 5.0}, {2, 1.0}};
    std::vector<ts::Hit> vector{{2, 0.9}, {1, 0.8}, {3, 0.7}};
    auto fused = ts::fuse(keyword, vector, 0, 1.0);
    BOOST_REQUIRE(fused.size() == 4u);
    // In both lists beats first in one only.
    auto at = [&](std::size_t t) {
        return std::find_if(fused.begin(), fused.end(), [&](const ts::Hit& h) { return h.tool == t; }) - fused.begin();
    };
    BOOST_TEST(at(1) < at(0));
    BOOST_TEST(at(2) < at(0));
    BOOST_TEST(at(0) < at(3));  // first in the keyword list before last in the vector list
    for (std::size_t i = 1; i < fused.size(); ++i) BOOST_TEST(fused[i].score <= fused[i - 1].score);
    BOOST_TEST(fused[0].score <= 1.0);
    // First in both lists scores exactly 1.
    auto both = ts::fuse({{5, 3.0}}, {{5, 0.5}}, 0, 0.5);
    BOOST_REQUIRE(both.size() == 1u);
    BOOST_TEST(std::fabs(both[0].score - 1.0) < 1e-9);
    // A weight of 0 leaves the keyword order; vector-only tools come after.
    auto keyword_only = ts::fuse(keyword, vector, 0, 0.0);
    BOOST_TEST(keyword_only[0].tool == 0u);
    BOOST_TEST(keyword_only[1].tool == 1u);
    BOOST_TEST(keyword_only[2].tool == 2u);
    BOOST_TEST(ts::fuse(keyword, vector, 2, 1.0).size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_request_naming_a_server_lifts_its_tools) {
    std::vector<ts::ToolText> tools{
        tool("mongodb__drop-collection", "Drops a collection of events from the database"),
        tool("chart__generate_spreadsheet", "Generate a spreadsheet or pivot table of events"),
        tool("desktopcommander__list_sessions", "List active terminal sessions"),
        tool("kubernetes__kubectl_get", "Get resources from the table of a cluster"),
    };
    ts::Options plain;
    ts::Options lifted;
    lifted.server_weight = 1.0f;
    auto first = [&](const ts::Options& o, std::string_view q) {
        auto hits = ts::Index(tools, o).query(q, 1);
        return hits.empty() ? std::string() : tools[hits[0].tool].name;
    };
    // The spreadsheet tool matches more words; "mongo" names the mongodb server by its prefix.
    BOOST_TEST(first(plain, "a pivot table of the events in mongo") != "mongodb__drop-collection");
    BOOST_TEST(first(lifted, "a pivot table of the events in mongo") == "mongodb__drop-collection");
    // Two adjacent words may spell a server's name; a short word (under four letters) never names one.
    BOOST_TEST(first(lifted, "list sessions of desktop commander") == "desktopcommander__list_sessions");
    ts::Servers servers;
    for (auto& t : tools) servers.add_tool(t.name);
    BOOST_TEST(servers.count() == 4u);
    auto named = servers.named({"mon"});
    BOOST_TEST(std::count(named.begin(), named.end(), true) == 0);
    named = servers.named({"kube"});
    BOOST_TEST(named[3]);
    BOOST_TEST(servers.server_of(99) == ts::Servers::kNone);
}

BOOST_AUTO_TEST_CASE(a_changed_catalog_embeds_only_its_new_and_changed_tools) {
    std::vector<ts::ToolText> tools{tool("a__x", "one"), tool("b__y", "two"), tool("c__z", "three")};
    TableEmbedder e;
    e.table = {{"a: x", {1, 0, 0}}, {"b: y", {0, 1, 0}}, {"c: z", {0, 0.6f, 0.8f}}};
    ts::VectorCache cache;
    ts::ToolVectors first(tools, e, {}, &cache);
    BOOST_TEST(first.embedded() == 3u);
    BOOST_TEST(cache.size() == 3u);
    // One tool's description changed and one tool is new: two texts go to the endpoint.
    tools[1].description = "two, upgraded";
    tools.push_back(tool("d__w", "four"));
    e.table.push_back({"d: w", {0, 0, 1}});
    ts::ToolVectors second(tools, e, {}, &cache);
    BOOST_TEST(second.embedded() == 2u);
    BOOST_TEST(e.texts_seen == 5u);
    // The vectors are those a build without the cache makes.
    TableEmbedder fresh_e;
    fresh_e.table = e.table;
    ts::ToolVectors fresh(tools, fresh_e);
    for (std::vector<float> q : {std::vector<float>{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}) {
        auto a = second.nearest(q, 0), b = fresh.nearest(q, 0);
        BOOST_REQUIRE(a.size() == b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            BOOST_TEST(a[i].tool == b[i].tool);
            BOOST_TEST(std::fabs(a[i].score - b[i].score) < 1e-9);
        }
    }
    // The same catalog again: nothing is sent.
    ts::ToolVectors third(tools, e, {}, &cache);
    BOOST_TEST(third.embedded() == 0u);
    BOOST_TEST(e.texts_seen == 5u);
    BOOST_TEST(!third.empty());
    // Another model: the cache does not answer for it, and its vectors replace the old ones.
    e.model = "other@3";
    ts::ToolVectors other(tools, e, {}, &cache);
    BOOST_TEST(other.embedded() == 4u);
    BOOST_TEST(cache.size() == 4u);
    // The same model behind another endpoint is another space too (the daemon names both).
    ts::ToolVectors elsewhere(tools, e, {}, &cache, "http://127.0.0.2:1/v1\nother@3");
    BOOST_TEST(elsewhere.embedded() == 4u);
    ts::ToolVectors again(tools, e, {}, &cache, "http://127.0.0.2:1/v1\nother@3");
    BOOST_TEST(again.embedded() == 0u);
}

BOOST_AUTO_TEST_CASE(the_vector_cache_keeps_the_most_recently_used_texts) {
    ts::VectorCache cache(20);  // ten vectors of two floats
    for (int i = 0; i < 10; ++i) cache.put("m", "t" + std::to_string(i), {1, 0});
    BOOST_TEST(cache.size() == 10u);
    BOOST_TEST(cache.find("m", "t0").has_value());  // t0 is now the most recently used
    BOOST_TEST(!cache.find("n", "t0").has_value());  // another model's vectors are not these
    cache.put("m", "t10", {0, 1});  // over the budget: the least recently used go, down to 18 floats
    BOOST_TEST(cache.size() == 9u);
    BOOST_TEST(cache.find("m", "t0").has_value());
    BOOST_TEST(cache.find("m", "t10").has_value());
    BOOST_TEST(!cache.find("m", "t1").has_value());
    // Vectors of another length start a new space.
    cache.put("m", "u", {1, 0, 0});
    BOOST_TEST(cache.size() == 1u);
    BOOST_TEST(!cache.find("m", "t0").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(entities)

namespace {
bool has(const std::vector<std::string>& v, std::string_view w) {
    auto s = ts::tokenize(w);
    return !s.empty() && std::find(v.begin(), v.end(), s.front()) != v.end();
}
}  // namespace

BOOST_AUTO_TEST_CASE(named_things_bring_their_type) {
    BOOST_TEST(has(ts::entity_terms("show me what's inside notes.txt"), "file"));
    BOOST_TEST(has(ts::entity_terms("rename report.docx, please."), "file"));
    BOOST_TEST(has(ts::entity_terms("open https://example.com/a?b=c"), "url"));
    BOOST_TEST(has(ts::entity_terms("sitemap of docs.example.com"), "url"));
    BOOST_TEST(!has(ts::entity_terms("sitemap of docs.example.com"), "file"));
    BOOST_TEST(has(ts::entity_terms("use /src/app as the default"), "directory"));
    BOOST_TEST(has(ts::entity_terms("mail bob@example.org"), "email"));
    BOOST_TEST(has(ts::entity_terms("expose it on localhost:8080"), "port"));
    BOOST_TEST(has(ts::entity_terms("add 17 and 25"), "number"));
    BOOST_TEST(!has(ts::entity_terms("kill process 1234"), "number"));  // one number says nothing
    BOOST_TEST(has(ts::entity_terms("who is in my workspace"), "user"));
    BOOST_TEST(has(ts::entity_terms("where is the office"), "location"));
    BOOST_TEST(has(ts::entity_terms("How many documents are there"), "count"));
    BOOST_TEST(has(ts::entity_terms("how far is it"), "distance"));
    // Ordinary words, version numbers and sentence ends are not things.
    BOOST_TEST(ts::entity_terms("create an issue.").empty());
    BOOST_TEST(ts::entity_terms("upgrade to 1.2").empty());
    BOOST_TEST(ts::entity_terms("").empty());
    BOOST_TEST(ts::entity_terms("   / : @ . ").empty());
}

BOOST_AUTO_TEST_SUITE_END()
