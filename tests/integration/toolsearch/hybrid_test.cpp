// Hybrid coffer__search_tools (SPEC G-24, docs/tool-search.md) on the real daemon: with
// $COFFER_TOOLSEARCH_EMBEDDINGS_* naming an OpenAI-compatible endpoint (the stand-in of
// tests/integration/knowledge_base, which speaks the wire format and makes bag-of-words vectors),
// the tools are embedded off the network thread, the request is embedded too, and the two lists
// are fused; the key comes from the credential store and never reaches the log; when the
// endpoint goes away the keyword list still answers; bad settings stop the daemon at startup.
#define BOOST_TEST_MODULE integration_toolsearch_hybrid
#include <boost/test/unit_test.hpp>

#include "../knowledge_base/embeddings_server.hpp"
#include "mcp_client.hpp"
#include "toolsearch/hybrid.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>

using namespace coffer::test;
namespace json = boost::json;
namespace ts = coffer::toolsearch;

namespace {

json::value search(McpClient& c, const std::string& query) {
    return c.request("tools/call", json::object{{"name", "coffer__search_tools"},
                                                {"arguments", json::object{{"query", query}, {"top_k", 5}}}})
        .json;
}

std::vector<std::string> found(const json::value& reply) {
    std::vector<std::string> out;
    auto& r = reply.at("result").as_object();
    BOOST_TEST(!r.at("isError").as_bool());
    double last = 1e300;
    for (auto& t : r.at("structuredContent").at("tools").as_array()) {
        out.emplace_back(t.at("name").as_string());
        double score = t.at("score").to_number<double>();
        BOOST_TEST(score > 0.0);
        BOOST_TEST(score <= last);  // fused scores fall with the rank too
        last = score;
    }
    return out;
}

// A made-up word (no tool shares a letter run with it) whose stand-in vector points at exactly
// one tool: the tool with the most words hashed to the word's dimension, by a clear margin.
struct Probe {
    std::string word;
    std::string tool;
};

std::optional<Probe> probe_for(const std::vector<std::pair<std::string, std::vector<float>>>& tools) {
    for (int i = 0; i < 5000; ++i) {
        std::string word = "zqv" + std::to_string(i) + "xq";
        auto q = EmbeddingsServer::vector_of(word);
        std::size_t dim = std::max_element(q.begin(), q.end()) - q.begin();
        std::vector<std::pair<float, std::string>> by;
        for (auto& [name, v] : tools) by.emplace_back(v[dim], name);
        std::sort(by.rbegin(), by.rend());
        if (by.size() >= 2 && by[0].first > 0.3f && by[0].first > by[1].first + 0.1f) return Probe{word, by[0].second};
    }
    return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_CASE(fuses_vectors_with_keywords_and_falls_back_to_keywords) {
    std::optional<EmbeddingsServer> emb(std::in_place);
    TempDir dir;
    auto vault = dir.path() / "vault";
    {
        // The key is a stored credential before the daemon that uses it starts.
        Daemon setup(vault);
        BOOST_REQUIRE(setup.start());
        BOOST_REQUIRE(setup.call("POST", "/api/v1/credentials", R"({"ref":"emb-key","value":"sk-tool-7d2e91"})").status == 201);
        add_stdio_server(setup, "up", COFFER_TEST_UPSTREAM);
        BOOST_REQUIRE(setup.stop() == 0);
    }
    Daemon d(vault, {{"COFFER_TOOLSEARCH_EMBEDDINGS_URL", emb->base_url()},
                     {"COFFER_TOOLSEARCH_EMBEDDINGS_MODEL", "bag-of-words"},
                     {"COFFER_TOOLSEARCH_EMBEDDINGS_KEY", "credref:emb-key"}});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    McpClient c(d);
    c.initialize();

    // The vectors the daemon will have made: the stand-in's, of each tool's embedding text.
    std::vector<std::pair<std::string, std::vector<float>>> tools;
    std::vector<std::string> texts;  // what each tool's vector is made from
    auto listed = c.request("tools/list").json;
    for (auto& t : listed.at("result").at("tools").as_array()) {
        std::string name(t.at("name").as_string());
        if (name.rfind("coffer__", 0) == 0) continue;
        auto text = ts::tool_text(t.as_object());
        text.name = name;
        texts.push_back(ts::embedding_text(text));
        tools.emplace_back(name, EmbeddingsServer::vector_of(texts.back()));
    }
    BOOST_REQUIRE(tools.size() >= 5u);
    auto probe = probe_for(tools);
    BOOST_REQUIRE(probe);

    // Only the vectors know the made-up word: once the tools are embedded (after the first search,
    // which the keyword index answers at once), hybrid search ranks the tool its vector points at first.
    auto first = search(c, probe->word);
    BOOST_TEST(!first.at("result").at("isError").as_bool());
    std::vector<std::string> hybrid;
    BOOST_TEST(eventually([&] {
        hybrid = found(search(c, probe->word));
        return !hybrid.empty() && hybrid.front() == probe->tool;
    }), probe->word << " → " << (hybrid.empty() ? std::string("nothing") : hybrid.front()));
    BOOST_TEST(emb->requests() >= 2);  // the tools, then the request
    BOOST_TEST(emb->last_authorization() == "Bearer sk-tool-7d2e91");
    // A keyword match still comes first when both lists agree on it.
    BOOST_TEST(found(search(c, "return the server's process id")).front() == "up__pid");

    // The catalog changes (the upstream adds a tool and says so): only the new tool's text goes
    // to the endpoint; the others' vectors come from the cache.
    auto sent_before = emb->inputs();
    for (auto& t : texts) BOOST_TEST(std::count(sent_before.begin(), sent_before.end(), t) == 1, t);
    auto before = sent_before.size();
    BOOST_TEST(c.call_tool("up__toggle").at("result").is_object());
    auto sent_since = [&] {
        auto all = emb->inputs();
        return std::vector<std::string>(all.begin() + static_cast<std::ptrdiff_t>(before), all.end());
    };
    auto is_extra = [](const std::string& t) { return t.rfind("up: extra", 0) == 0; };
    BOOST_TEST(eventually([&] {
        search(c, "exists only after toggle");
        auto sent = sent_since();
        return std::any_of(sent.begin(), sent.end(), is_extra);
    }));
    for (auto& t : texts) {
        auto sent = sent_since();
        BOOST_TEST(std::count(sent.begin(), sent.end(), t) == 0, "embedded again: " << t);
    }

    // The endpoint goes away: the same request gets the keyword answer (no error, no hang).
    emb.reset();
    auto keyword = search(c, probe->word);
    auto names = found(keyword);
    BOOST_TEST((names.empty() || names.front() != probe->tool));
    BOOST_TEST(found(search(c, "return the server's process id")).front() == "up__pid");

    // The key is never logged.
    BOOST_TEST(d.log().find("sk-tool-7d2e91") == std::string::npos);
    std::ifstream log_file(vault / "logs" / "daemon.log");
    std::string log((std::istreambuf_iterator<char>(log_file)), std::istreambuf_iterator<char>());
    BOOST_TEST(log.find("sk-tool-7d2e91") == std::string::npos);
    BOOST_TEST(log.find("embedding the request failed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_settings_stop_the_daemon_at_startup) {
    struct Case {
        std::map<std::string, std::string> env;
        std::string says;
    };
    std::vector<Case> cases{
        {{{"COFFER_TOOLSEARCH_EMBEDDINGS_URL", "http://127.0.0.1:9/v1"}}, "go together"},
        {{{"COFFER_TOOLSEARCH_EMBEDDINGS_URL", "ftp://x"}, {"COFFER_TOOLSEARCH_EMBEDDINGS_MODEL", "m"}}, "http:// or https://"},
        {{{"COFFER_TOOLSEARCH_EMBEDDINGS_URL", "http://127.0.0.1:9/v1"},
          {"COFFER_TOOLSEARCH_EMBEDDINGS_MODEL", "m"},
          {"COFFER_TOOLSEARCH_EMBEDDINGS_KEY", "sk-plain-secret"}},
         "credref:NAME"},
        {{{"COFFER_TOOLSEARCH_EMBEDDINGS_URL", "http://127.0.0.1:9/v1"},
          {"COFFER_TOOLSEARCH_EMBEDDINGS_MODEL", "m"},
          {"COFFER_TOOLSEARCH_EMBEDDINGS_KEY", "credref:missing"}},
         "no credential 'missing'"},
        {{{"COFFER_TOOLSEARCH_VECTOR_WEIGHT", "2"}}, "from 0 to 1"},
        {{{"COFFER_TOOLSEARCH_EMBEDDINGS_URL", "http://user:sk-plain-secret@127.0.0.1:9/v1"},
          {"COFFER_TOOLSEARCH_EMBEDDINGS_MODEL", "m"}},
         "must not carry credentials"},
    };
    for (auto& k : cases) {
        TempDir dir;
        Daemon d(dir.path() / "vault", k.env);
        BOOST_TEST(!d.start());
        BOOST_TEST(d.log().find(k.says) != std::string::npos, d.log());
        BOOST_TEST(d.log().find("sk-plain-secret") == std::string::npos);
    }
}
