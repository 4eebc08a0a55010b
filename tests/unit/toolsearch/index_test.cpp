// The BM25F index: field weights, determinism and tie-breaking, limits, CJK and expansion, rebuilds.
#include <boost/test/unit_test.hpp>

#include "toolsearch/index.hpp"

#include <algorithm>

namespace ts = coffer::toolsearch;

namespace {

ts::ToolText tool(std::string name, std::string description, std::vector<std::string> params = {}) {
    return ts::ToolText{std::move(name), std::move(description), std::move(params), {}, {}};
}

std::vector<std::string> names(const ts::Index& index, const std::vector<ts::ToolText>& tools, std::string_view q,
                               std::size_t limit = 0) {
    std::vector<std::string> out;
    for (auto& h : index.query(q, limit)) out.push_back(tools[h.tool].name);
    return out;
}

const std::vector<ts::ToolText>& catalog() {
    static const std::vector<ts::ToolText> tools{
        tool("github__create_issue", "Create a new issue in a GitHub repository", {"owner", "repo", "title", "body"}),
        tool("github__list_issues", "List issues in a GitHub repository", {"owner", "repo", "state"}),
        tool("github__create_pull_request", "Open a pull request from a branch", {"owner", "repo", "head", "base"}),
        tool("slack__post_message", "Post a message to a Slack channel", {"channel_id", "text"}),
        tool("mail__send", "Send an email message to recipients", {"to", "subject", "body"}),
        tool("fs__read_file", "Read the complete contents of a file", {"path"}),
        tool("fs__write_file", "Create or overwrite a file with new content", {"path", "content"}),
        tool("notes__lookup", "Look up a note; mentions files and issues in passing", {"query"}),
        tool("amap__maps_weather", "根据城市名称查询指定城市的天气", {"city"}),
        tool("time__now", "Current time in a timezone", {"timezone"}),
    };
    return tools;
}

}  // namespace

BOOST_AUTO_TEST_CASE(ranks_by_relevance) {
    auto& tools = catalog();
    ts::Index index(tools);
    BOOST_TEST(index.size() == tools.size());
    BOOST_TEST(names(index, tools, "create an issue", 1) == std::vector<std::string>{"github__create_issue"});
    BOOST_TEST(names(index, tools, "send an email", 1) == std::vector<std::string>{"mail__send"});
    BOOST_TEST(names(index, tools, "read a file", 1) == std::vector<std::string>{"fs__read_file"});
    BOOST_TEST(names(index, tools, "post to the slack channel", 1) == std::vector<std::string>{"slack__post_message"});
    // Scores are positive and never increase down the list.
    auto hits = index.query("github issue repository", 0);
    BOOST_REQUIRE(hits.size() >= 3u);
    for (std::size_t i = 0; i < hits.size(); ++i) {
        BOOST_TEST(hits[i].score > 0.0);
        if (i) BOOST_TEST(hits[i - 1].score >= hits[i].score);
    }
}

BOOST_AUTO_TEST_CASE(a_name_match_outweighs_a_description_match) {
    // "file" is in fs__*'s names and only in notes__lookup's description.
    auto& tools = catalog();
    ts::Index index(tools);
    auto r = names(index, tools, "file");
    BOOST_REQUIRE(r.size() == 3u);
    BOOST_TEST(r.back() == "notes__lookup");
    // With the name weight equal to the description's, the field no longer decides alone.
    std::vector<ts::ToolText> two{tool("a__thing", "mentions widget once"), tool("b__widget", "something else")};
    ts::Index weighted(two);
    BOOST_TEST(names(weighted, two, "widget").front() == "b__widget");
    ts::Options flat;
    flat.name_weight = 1.0f;
    flat.description_weight = 3.0f;
    ts::Index desc_heavy(two, flat);
    BOOST_TEST(names(desc_heavy, two, "widget").front() == "a__thing");
}

BOOST_AUTO_TEST_CASE(parameter_names_are_searched) {
    std::vector<ts::ToolText> tools{tool("x__run", "Does the thing", {"latitude", "longitude"}), tool("y__other", "Other thing")};
    ts::Index index(tools);
    BOOST_TEST(names(index, tools, "longitude") == std::vector<std::string>{"x__run"});
}

BOOST_AUTO_TEST_CASE(deterministic_with_ties_broken_by_name) {
    // Identical texts score the same: the order is by name whatever the input order.
    std::vector<ts::ToolText> tools{tool("c__same", "identical words here"), tool("a__same", "identical words here"),
                                    tool("b__same", "identical words here")};
    ts::Index index(tools);
    auto first = names(index, tools, "identical words");
    BOOST_TEST(first == (std::vector<std::string>{"a__same", "b__same", "c__same"}));
    std::reverse(tools.begin(), tools.end());
    ts::Index reversed(tools);
    BOOST_TEST(names(reversed, tools, "identical words") == first);
    // The same query twice gives the same scores, bit for bit.
    auto a = index.query("identical words", 0), b = index.query("identical words", 0);
    BOOST_REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) BOOST_TEST((a[i].tool == b[i].tool && a[i].score == b[i].score));
    // The hit refers to the position in the input list.
    BOOST_TEST(tools[reversed.query("identical", 1).front().tool].name == "a__same");
}

BOOST_AUTO_TEST_CASE(limits_and_empty_cases) {
    auto& tools = catalog();
    ts::Index index(tools);
    BOOST_TEST(index.query("issue", 1).size() == 1u);
    BOOST_TEST(index.query("issue", 100).size() == index.query("issue", 0).size());
    BOOST_TEST(index.query("zzzz unknownword", 5).empty());
    BOOST_TEST(index.query("", 5).empty());
    BOOST_TEST(index.query("the of to", 5).empty());  // only stopwords
    ts::Index empty;
    BOOST_TEST(empty.query("anything", 5).empty());
    ts::Index none(std::vector<ts::ToolText>{});
    BOOST_TEST(none.query("anything", 5).empty());
    std::vector<ts::ToolText> blank{tool("", ""), tool("x__y", "")};
    ts::Index blanks(blank);
    BOOST_TEST(names(blanks, blank, "y").empty());  // single letters are not terms
}

BOOST_AUTO_TEST_CASE(cjk_queries) {
    auto& tools = catalog();
    ts::Index index(tools);
    // Chinese query, Chinese description: bigrams match.
    BOOST_TEST(names(index, tools, "查询北京的天气", 1) == std::vector<std::string>{"amap__maps_weather"});
    // Chinese query, English descriptions: the glossary brings the English words.
    BOOST_TEST(names(index, tools, "发送邮件", 1) == std::vector<std::string>{"mail__send"});
    BOOST_TEST(names(index, tools, "读取文件", 1) == std::vector<std::string>{"fs__read_file"});
}

BOOST_AUTO_TEST_CASE(abbreviations_expand) {
    std::vector<ts::ToolText> tools{tool("k__scale", "Scale a Kubernetes deployment"), tool("d__scale", "Scale a Docker service")};
    ts::Index index(tools);
    BOOST_TEST(names(index, tools, "k8s scale", 1) == std::vector<std::string>{"k__scale"});
}

BOOST_AUTO_TEST_CASE(a_rebuilt_index_reflects_the_new_catalog) {
    std::vector<ts::ToolText> tools{tool("a__alpha", "first tool"), tool("b__beta", "second tool")};
    ts::Index before(tools);
    BOOST_TEST(names(before, tools, "gamma").empty());
    tools.push_back(tool("c__gamma", "third tool"));
    tools.erase(tools.begin());
    ts::Index after(tools);
    BOOST_TEST(names(after, tools, "gamma") == std::vector<std::string>{"c__gamma"});
    BOOST_TEST(names(after, tools, "alpha").empty());
    BOOST_TEST(after.size() == 2u);
}
