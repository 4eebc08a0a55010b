// The tool search tokenizer and stemmer: identifier splitting, case, digits, stopwords, stems,
// CJK bigrams, and input that is not clean UTF-8.
#define BOOST_TEST_MODULE toolsearch
#include <boost/test/unit_test.hpp>

#include "toolsearch/expand.hpp"
#include "toolsearch/schema_fields.hpp"
#include "toolsearch/stem.hpp"
#include "toolsearch/tokenize.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace ts = coffer::toolsearch;
using Terms = std::vector<std::string>;

namespace {
bool has(const Terms& t, const std::string& s) { return std::find(t.begin(), t.end(), s) != t.end(); }
}  // namespace

BOOST_AUTO_TEST_CASE(identifiers_split_at_separators) {
    BOOST_TEST(ts::tokenize("github__create_issue") == (Terms{"github", "creat", "issu"}));
    BOOST_TEST(ts::tokenize("resolve-library-id") == (Terms{"resolv", "library", "id"}));
    BOOST_TEST(ts::tokenize("pods.spec.containers") == (Terms{"pod", "spec", "container"}));
    BOOST_TEST(ts::tokenize("a/b\\c  tab\tline\nend") == (Terms{"tab", "lin", "end"}));  // single letters dropped
}

BOOST_AUTO_TEST_CASE(camel_case_splits_and_keeps_the_whole_word) {
    BOOST_TEST(ts::tokenize("listPullRequests") == (Terms{"list", "pull", "request", "listpullrequest"}));
    BOOST_TEST(ts::tokenize("GitHub") == (Terms{"git", "hub", "github"}));
    BOOST_TEST(ts::tokenize("HTTPServer") == (Terms{"http", "server", "httpserver"}));
    BOOST_TEST(ts::tokenize("getURLs") == (Terms{"get", "url", "geturl"}));
    BOOST_TEST(ts::tokenize("PRs") == (Terms{"pr"}));  // an acronym's plural is the acronym
    BOOST_TEST(ts::tokenize("lowercase") == (Terms{"lowercas"}));
}

BOOST_AUTO_TEST_CASE(digits_split_from_letters) {
    BOOST_TEST(ts::tokenize("ec2") == (Terms{"ec", "2", "ec2"}));
    BOOST_TEST(ts::tokenize("s3_list_buckets") == (Terms{"3", "s3", "list", "bucket"}));
    BOOST_TEST(ts::tokenize("v1 2024") == (Terms{"1", "v1", "2024"}));
}

BOOST_AUTO_TEST_CASE(lower_case_and_stopwords) {
    BOOST_TEST(ts::tokenize("Please SEND the Email to me") == (Terms{"send", "email"}));
    BOOST_TEST(ts::tokenize("the of and to").empty());
    BOOST_TEST(ts::tokenize("").empty());
    BOOST_TEST(ts::tokenize("  ,.;!? ").empty());
}

BOOST_AUTO_TEST_CASE(stems_meet) {
    for (auto& group : std::vector<Terms>{{"create", "creates", "creating", "created"},
                                          {"delete", "deletes", "deleting", "deleted"},
                                          {"file", "files"},
                                          {"repository", "repositories"},
                                          {"branch", "branches"},
                                          {"database", "databases"},
                                          {"commit", "commits", "committed", "committing"},
                                          {"run", "running"},
                                          {"query", "queries", "queried"}}) {
        for (auto& w : group) BOOST_TEST(ts::stem(w) == ts::stem(group.front()), w << " vs " << group.front());
    }
    // Left alone: short words, words with digits, words that only look inflected.
    BOOST_TEST(ts::stem("use") == "use");
    BOOST_TEST(ts::stem("s3") == "s3");
    BOOST_TEST(ts::stem("string") == "string");
    BOOST_TEST(ts::stem("thread") == "thread");
    BOOST_TEST(ts::stem("status") == "status");
    BOOST_TEST(ts::stem("address") == "address");
    BOOST_TEST(ts::stem("install") == "install");
    BOOST_TEST(ts::stem("installing") == "install");
    BOOST_TEST(ts::is_stopword("the"));
    BOOST_TEST(!ts::is_stopword("list"));
}

BOOST_AUTO_TEST_CASE(cjk_runs_become_bigrams) {
    BOOST_TEST(ts::tokenize("天气预报") == (Terms{"天气", "气预", "预报"}));
    BOOST_TEST(ts::tokenize("表") == (Terms{"表"}));  // a lone character stands for itself
    // Particles and filler words split a run; they never join a bigram.
    BOOST_TEST(ts::tokenize("北京的天气") == (Terms{"北京", "天气"}));
    BOOST_TEST(ts::tokenize("帮我搜索一下文件") == (Terms{"搜索", "文件"}));
    // Mixed scripts: Latin words and CJK runs each by their rules.
    BOOST_TEST(ts::tokenize("在GitHub创建issue") == (Terms{"在", "git", "hub", "github", "创建", "issu"}));
    BOOST_TEST(ts::tokenize("ファイル検索") == (Terms{"ファ", "ァイ", "イル", "ル検", "検索"}));
    BOOST_TEST(ts::tokenize("파일 검색") == (Terms{"파일", "검색"}));
    // Fullwidth Latin folds to ASCII; the ideographic space separates.
    BOOST_TEST(ts::tokenize("ＧｉｔＨｕｂ\u3000ｉｓｓｕｅ") == (Terms{"git", "hub", "github", "issu"}));
}

BOOST_AUTO_TEST_CASE(other_scripts_and_bad_utf8) {
    BOOST_TEST(ts::tokenize("Café ÜBER") == (Terms{"café", "über"}));
    BOOST_TEST(ts::tokenize("Привет мир") == (Terms{"привет", "мир"}));
    // Invalid and truncated sequences separate words; nothing is thrown.
    BOOST_TEST(ts::tokenize(std::string("abc\xff" "def\xe4\xb8", 9)) == (Terms{"abc", "def"}));
    BOOST_TEST(ts::tokenize(std::string("\xc0\xaf\xed\xa0\x80zz", 7)) == (Terms{"zz"}));
    BOOST_TEST(ts::tokenize(std::string("\x00nul", 4)) == (Terms{"nul"}));
    BOOST_TEST(ts::tokenize("emoji 🚀 rocket") == (Terms{"emoji", "rocket"}));
}

BOOST_AUTO_TEST_CASE(query_expansion) {
    auto q = [](std::string_view text) {
        Terms out;
        for (auto& e : ts::expand(text, ts::tokenize(text))) out.push_back(e.term);
        return out;
    };
    BOOST_TEST(has(q("clone a repo"), "repository"));
    BOOST_TEST(has(q("k8s pods"), "kubernet"));
    auto cn = q("创建一个仓库");
    BOOST_TEST(has(cn, "creat"));
    BOOST_TEST(has(cn, "repository"));
    BOOST_TEST(q("plain words only").empty());
    // Synonyms weigh less than abbreviations.
    for (auto& e : ts::expand("ticket", ts::tokenize("ticket"))) BOOST_TEST(e.weight < 1.0f);
    for (auto& e : ts::expand("repo", ts::tokenize("repo"))) BOOST_TEST(e.weight == 1.0f);
}

BOOST_AUTO_TEST_CASE(parameter_names_from_schemas) {
    auto schema = boost::json::parse(R"({"type":"object","properties":{
        "owner":{"type":"string"},
        "files":{"type":"array","items":{"type":"object","properties":{"path":{},"content":{}}}},
        "options":{"type":"object","properties":{"deep":{"type":"object","properties":{"deeper":{"type":"object",
                   "properties":{"too_deep":{}}}}}}}}})");
    auto names = ts::parameter_names(schema);
    BOOST_TEST(names == (Terms{"owner", "files", "path", "content", "options", "deep", "deeper"}));
    BOOST_TEST(ts::parameter_names(boost::json::parse("[1,2]")).empty());
    BOOST_TEST(ts::parameter_names(boost::json::parse(R"({"properties":7})")).empty());
    auto tool = ts::tool_text(boost::json::parse(R"({"name":"x","title":"The X","inputSchema":{"properties":{"a":{}}}})").as_object());
    BOOST_TEST(tool.name == "x");
    BOOST_TEST(tool.description == "The X");  // the title stands in for a missing description
    BOOST_TEST(tool.parameters == (Terms{"a"}));
}
