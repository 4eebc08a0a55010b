// The matching added with the captured-server evaluation: WordNet relations (lexicon), relaxed
// trigram matching, parameter descriptions and server instructions as fields, and the fallback
// that keeps an answer from being empty when some tool shares meaning with the request.
#include <boost/test/unit_test.hpp>

#include "toolsearch/index.hpp"
#include "toolsearch/lexicon.hpp"
#include "toolsearch/schema_fields.hpp"
#include "toolsearch/trigram.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

namespace ts = coffer::toolsearch;

namespace {

bool relates(std::string_view word, std::string_view to, ts::Relation relation) {
    auto r = ts::related(word);
    return std::any_of(r.begin(), r.end(), [&](auto& x) { return x.term == to && x.relation == relation; });
}

std::string first(const ts::Index& index, const std::vector<ts::ToolText>& tools, std::string_view q) {
    auto hits = index.query(q, 1);
    return hits.empty() ? std::string() : tools[hits[0].tool].name;
}

}  // namespace

BOOST_AUTO_TEST_CASE(lexicon_relations_from_wordnet) {
    if (ts::lexicon_source().empty()) {
        BOOST_TEST_MESSAGE("built without WordNet: lexicon checks skipped");
        BOOST_TEST(ts::related("delet").empty());
        return;
    }
    BOOST_TEST(ts::lexicon_size() > 10000u);
    // Stems, as the tokenizer makes them: erase ~ delete (synonyms), creation → create (derived).
    BOOST_TEST(relates("eras", "delet", ts::Relation::synonym));
    BOOST_TEST(relates("creation", "creat", ts::Relation::derived));
    BOOST_TEST(relates("ran", "run", ts::Relation::lemma));         // an irregular form leads to its lemma
    BOOST_TEST(relates("children", "child", ts::Relation::lemma));
    BOOST_TEST(ts::related("zzzqqq").empty());
    // Closest relation first.
    auto r = ts::related("ran");
    BOOST_TEST(std::is_sorted(r.begin(), r.end(), [](auto& a, auto& b) { return a.relation < b.relation; }));
}

BOOST_AUTO_TEST_CASE(phrases_wordnet_knows_as_one_lemma) {
    if (ts::lexicon_source().empty()) {
        BOOST_TEST_MESSAGE("built without WordNet: phrase checks skipped");
        BOOST_TEST(ts::phrases("get rid of it").empty());
        return;
    }
    // Found in any case and inflection, longest first, never across punctuation.
    auto p = ts::phrases("Getting rid of the old index, then THROW AWAY the table");
    BOOST_REQUIRE(p.size() == 2u);
    BOOST_TEST((p[0].words == std::vector<std::string>{"get", "rid", "of"}));
    BOOST_TEST((p[1].words == std::vector<std::string>{"throw", "away"}));
    auto has = [](const ts::Phrase& x, std::string_view term) {
        return std::any_of(x.related.begin(), x.related.end(), [&](auto& r) { return r.term == term; });
    };
    BOOST_TEST(has(p[0], "remov"));  // get rid of ~ remove
    BOOST_TEST(has(p[1], "discard"));
    auto cut = ts::phrases("get, rid of");
    BOOST_TEST(std::none_of(cut.begin(), cut.end(), [](auto& x) { return x.words.front() == "get"; }));
    BOOST_TEST(ts::phrases("the table").empty());

    // "get rid of" means remove; without the phrase only "index" matches, and the tie goes by name.
    std::vector<ts::ToolText> tools{{"db__create_index", "Create an index on a collection", {}, {}, ""},
                                    {"db__drop_index", "Remove an index from a collection", {}, {}, ""}};
    ts::Index index(tools);
    BOOST_TEST(first(index, tools, "get rid of an index") == "db__drop_index");
    ts::Options off;
    off.phrase_weight = 0;
    ts::Index without(tools, off);
    BOOST_TEST(first(without, tools, "get rid of an index") == "db__create_index");
}

BOOST_AUTO_TEST_CASE(trigram_similarity) {
    ts::TrigramIndex g;
    g.add("screenshot", 1);
    g.add("spider", 2);
    g.add("abc", 3);  // too short: not indexed
    BOOST_TEST(!ts::TrigramIndex::eligible("abc"));
    BOOST_TEST(!ts::TrigramIndex::eligible("天气预报"));
    auto m = g.similar("screnshot", 0.6f, 5);  // a typo
    BOOST_REQUIRE(!m.empty());
    BOOST_TEST(m[0].term == 1u);
    BOOST_TEST(m[0].similarity < 1.0f);
    BOOST_TEST(g.similar("screenshot", 0.6f, 5)[0].similarity == 1.0f);
    BOOST_TEST(!g.similar("spidering", 0.6f, 5).empty());  // a compound of an indexed word
    BOOST_TEST(g.similar("screencap", 0.6f, 5).empty());   // too far for the first pass…
    BOOST_TEST(!g.similar("screencap", 0.4f, 5).empty());  // …close enough for the last resort
    BOOST_TEST(g.similar("abc", 0.1f, 5).empty());
}

BOOST_AUTO_TEST_CASE(parameter_descriptions_are_a_field) {
    auto schema = boost::json::parse(R"({"type":"object","properties":{
        "q":{"type":"string","description":"Free-text filter on the invoice memo"},
        "items":{"type":"array","items":{"type":"object","properties":{"sku":{"title":"Stock keeping unit"}}}}}})");
    auto text = ts::parameter_descriptions(schema);
    BOOST_TEST(text.size() == 2u);
    BOOST_TEST(text[0] == "Free-text filter on the invoice memo");
    BOOST_TEST(text[1] == "Stock keeping unit");
    auto t = ts::tool_text(boost::json::parse(R"({"name":"find","description":"Find records","inputSchema":)" +
                                              boost::json::serialize(schema) + "}")
                               .as_object());
    BOOST_TEST(t.schema_text.size() == 2u);

    std::vector<ts::ToolText> tools{{"billing__find", "Find records", {"q"}, text, ""},
                                    {"crm__find", "Find records", {"q"}, {}, ""}};
    ts::Index index(tools);
    BOOST_TEST(first(index, tools, "invoice memo") == "billing__find");
}

BOOST_AUTO_TEST_CASE(server_instructions_are_a_field) {
    std::vector<ts::ToolText> tools{
        {"a__run", "Run it", {}, {}, "This server drives a headless Chromium browser."},
        {"b__run", "Run it", {}, {}, "This server talks to a Postgres database."},
    };
    ts::Index index(tools);
    BOOST_TEST(first(index, tools, "chromium") == "a__run");
    BOOST_TEST(first(index, tools, "postgres") == "b__run");
}

BOOST_AUTO_TEST_CASE(expansion_and_fallback_keep_answers_from_being_empty) {
    std::vector<ts::ToolText> tools{
        {"memory__delete_entities", "Delete multiple entities and their associated relations", {"entityNames"}, {}, ""},
        {"fs__take_screenshot", "Capture the screen", {}, {}, ""},
        {"crawler__crawl", "Crawl a website", {"url"}, {}, ""},
    };
    ts::Index index(tools);
    if (!ts::lexicon_source().empty())
        BOOST_TEST(first(index, tools, "erase Alice") == "memory__delete_entities");  // WordNet synonym
    BOOST_TEST(first(index, tools, "screnshot please") == "fs__take_screenshot");    // a typo, trigrams
    BOOST_TEST(first(index, tools, "crawling") == "crawler__crawl");                  // stemmer
    BOOST_TEST(first(index, tools, "screencap") == "fs__take_screenshot");               // last resort
    // Nothing shares meaning: still nothing.
    BOOST_TEST(index.query("zzzz qqqq", 5).empty());
    // An own word always outweighs an expansion of another word to the same term.
    auto own = index.query("delete", 1), related = index.query("erase", 1);
    BOOST_REQUIRE(!own.empty());
    if (!related.empty()) BOOST_TEST(own[0].score > related[0].score);
}
