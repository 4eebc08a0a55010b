// The words that name capability types: each type round-trips through its singular and plural
// names, and nothing else parses; URI templates match the URIs they describe.
#define BOOST_TEST_MODULE curation
#include <boost/test/unit_test.hpp>

#include "curation/types.hpp"
#include "curation/uri_template.hpp"

#include <string>

using namespace coffer::curation;

BOOST_AUTO_TEST_SUITE(types)

BOOST_AUTO_TEST_CASE(every_type_round_trips_through_its_words) {
    for (auto t : {Type::tool, Type::resource, Type::prompt, Type::resource_template}) {
        BOOST_TEST((parse_type(to_string(t)) == t));
        BOOST_TEST((parse_type(plural(t)) == t));
    }
    BOOST_TEST(to_string(Type::resource) == "resource");
    BOOST_TEST(plural(Type::prompt) == "prompts");
    BOOST_TEST(title(Type::tool) == "Tool");
    BOOST_TEST(plural(Type::resource_template) == "templates");
    BOOST_TEST(title(Type::resource_template) == "Resource template");
}

BOOST_AUTO_TEST_CASE(other_words_are_not_types) {
    for (auto w : {"", "Tool", "TOOLS", "toolz", "tool ", "capability"}) BOOST_TEST(!parse_type(w).has_value(), w);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(uri_templates)

BOOST_AUTO_TEST_CASE(simple_expressions_match_one_segment) {
    BOOST_TEST(uri_template_matches("test://dynamic/{id}", "test://dynamic/7"));
    BOOST_TEST(uri_template_matches("test://dynamic/{id}", "test://dynamic/"));  // an empty value
    BOOST_TEST(!uri_template_matches("test://dynamic/{id}", "test://dynamic/7/8"));
    BOOST_TEST(!uri_template_matches("test://dynamic/{id}", "test://other/7"));
    BOOST_TEST(!uri_template_matches("test://dynamic/{id}", "test://dynamic/7?x=1"));
    BOOST_TEST(uri_template_matches("file:///{dir}/{name}.txt", "file:///docs/readme.txt"));
    BOOST_TEST(!uri_template_matches("file:///{dir}/{name}.txt", "file:///docs/readme.md"));
    BOOST_TEST(uri_template_matches("repo://{owner}/{repo}", "repo://a/b"));
}

BOOST_AUTO_TEST_CASE(operators_match_what_they_expand_to) {
    BOOST_TEST(uri_template_matches("file://{+path}", "file:///etc/hosts"));
    BOOST_TEST(uri_template_matches("db://t{/segments}", "db://t/a/b/c"));
    BOOST_TEST(uri_template_matches("db://t{/segments}", "db://t"));
    BOOST_TEST(!uri_template_matches("db://t{/segments}", "db://t/a?b"));
    BOOST_TEST(uri_template_matches("api://search{?q,limit}", "api://search?q=x&limit=3"));
    BOOST_TEST(uri_template_matches("api://search{?q,limit}", "api://search"));
    BOOST_TEST(!uri_template_matches("api://search{?q,limit}", "api://search/more"));
    BOOST_TEST(uri_template_matches("api://x{?a}{&b}", "api://x?a=1&b=2"));
    BOOST_TEST(uri_template_matches("doc://x{#frag}", "doc://x#top"));
    BOOST_TEST(uri_template_matches("v://x{.fmt}", "v://x.json"));
    BOOST_TEST(uri_template_matches("m://x{;p}", "m://x;a=1"));
}

BOOST_AUTO_TEST_CASE(literals_are_literal_and_long_input_is_bounded) {
    BOOST_TEST(uri_template_matches("a.b://x", "a.b://x"));
    BOOST_TEST(!uri_template_matches("a.b://x", "aXb://x"));    // "." is no wildcard
    BOOST_TEST(uri_template_matches("broken://{id", "broken://{id"));  // unclosed: literally
    BOOST_TEST(!uri_template_matches("broken://{id", "broken://7"));
    // Many expressions against a long URI that does not match ends quickly (memoized).
    std::string tmpl = "x://";
    for (int i = 0; i < 20; ++i) tmpl += "{+a}-";
    BOOST_TEST(!uri_template_matches(tmpl + "end", "x://" + std::string(2000, '-') + "nope"));
}

BOOST_AUTO_TEST_SUITE_END()
