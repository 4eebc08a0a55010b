// Unit tests of the retrieval library's text handling: the Markdown chunker (line ranges,
// headings, frontmatter, fences, long sections), CJK segmentation and MATCH expression building.
#define BOOST_TEST_MODULE retrieval_text
#include <boost/test/unit_test.hpp>

#include "retrieval/cjk/segment.hpp"
#include "retrieval/markdown.hpp"
#include "retrieval/match_query.hpp"
#include "retrieval/snippet.hpp"

#include <coffer/utf8.hpp>

using namespace coffer::retrieval;

BOOST_AUTO_TEST_SUITE(markdown)

BOOST_AUTO_TEST_CASE(headings_frontmatter_and_line_ranges) {
    const char* text =
        "---\n"             // 1
        "title: \"Setup Guide\"\n"  // 2
        "tags: [a]\n"       // 3
        "---\n"             // 4
        "Intro line.\n"     // 5
        "\n"                // 6
        "# Install\n"       // 7
        "\n"                // 8
        "## Debian\n"       // 9
        "apt install x\n"   // 10
        "\n"                // 11
        "```sh\n"           // 12
        "# not a heading\n" // 13
        "```\n"             // 14
        "## Fedora\n"       // 15
        "dnf install x\n";  // 16
    auto doc = parse_markdown(text, "setup");
    BOOST_TEST(doc.title == "Setup Guide");
    BOOST_REQUIRE_EQUAL(doc.chunks.size(), 3u);
    BOOST_TEST(doc.chunks[0].heading == "");
    BOOST_TEST(doc.chunks[0].line_from == 5);
    BOOST_TEST(doc.chunks[0].line_to == 5);
    BOOST_TEST(doc.chunks[0].text == "Intro line.");
    // "# Install" has nothing of its own; its text lives in the children's heading paths.
    BOOST_TEST(doc.chunks[1].heading == "Install > Debian");
    BOOST_TEST(doc.chunks[1].line_from == 9);
    BOOST_TEST(doc.chunks[1].line_to == 14);
    BOOST_TEST(doc.chunks[1].text.find("# not a heading") != std::string::npos);
    BOOST_TEST(doc.chunks[2].heading == "Install > Fedora");
    BOOST_TEST(doc.chunks[2].line_from == 15);
    BOOST_TEST(doc.chunks[2].line_to == 16);
}

BOOST_AUTO_TEST_CASE(title_falls_back_to_h1_then_stem) {
    BOOST_TEST(parse_markdown("text\n# The Title\nmore\n", "stem").title == "The Title");
    BOOST_TEST(parse_markdown("just text\n", "stem").title == "stem");
    // An unclosed `---` is a thematic break, not frontmatter: its lines are content.
    auto doc = parse_markdown("---\ntitle: x\nbody\n", "stem");
    BOOST_TEST(doc.title == "stem");
    BOOST_REQUIRE(!doc.chunks.empty());
    BOOST_TEST(doc.chunks[0].line_from == 1);
}

BOOST_AUTO_TEST_CASE(long_section_split_at_paragraphs_fence_kept_whole) {
    std::string text = "# Big\n";
    int line = 2;
    std::vector<int> para_starts;
    for (int p = 0; p < 12; ++p) {  // 12 paragraphs of ~400 bytes
        para_starts.push_back(line);
        for (int l = 0; l < 4; ++l, ++line) text += std::string(99, 'a' + p) + "\n";
        text += "\n";
        ++line;
    }
    int fence_from = line;
    text += "```\n";
    for (int l = 0; l < 30; ++l) text += "code line " + std::string(90, 'z') + "\n\n";  // blank lines inside
    text += "```\n";
    int fence_to = fence_from + 61;
    text += "tail\n";
    auto doc = parse_markdown(text, "big");
    BOOST_REQUIRE_GE(doc.chunks.size(), 4u);
    int prev_to = 0;
    bool fence_seen = false;
    for (const auto& c : doc.chunks) {
        BOOST_TEST(c.heading == "Big");
        BOOST_TEST(c.line_from > prev_to);
        prev_to = c.line_to;
        if (c.line_from <= fence_from && c.line_to >= fence_from) {
            BOOST_TEST(c.line_to >= fence_to);  // the fence never split
            fence_seen = true;
        } else {
            BOOST_TEST(c.text.size() <= kMaxChunkBytes);
        }
        // Chunks of prose start at a paragraph (or the heading).
        if (c.line_from < fence_from && c.line_from != 1)
            BOOST_TEST((std::find(para_starts.begin(), para_starts.end(), c.line_from) != para_starts.end()));
    }
    BOOST_TEST(fence_seen);
    BOOST_TEST(doc.chunks.back().line_to == fence_to + 1);
}

BOOST_AUTO_TEST_CASE(crlf_and_no_trailing_newline) {
    auto doc = parse_markdown("# A\r\nline one\r\nline two", "x");
    BOOST_REQUIRE_EQUAL(doc.chunks.size(), 1u);
    BOOST_TEST(doc.chunks[0].text == "# A\nline one\nline two");
    BOOST_TEST(doc.chunks[0].line_to == 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(segmentation)

BOOST_AUTO_TEST_CASE(cjk_runs_become_bigrams) {
    BOOST_TEST(cjk::search_text("用数据库abc") == " 用数 数据 据库 库 abc");
    BOOST_TEST(cjk::search_text("plain text") == "plain text");
    auto terms = cjk::query_terms("数据库");
    BOOST_REQUIRE_EQUAL(terms.size(), 2u);
    BOOST_TEST(terms[0].text == "数据");
    BOOST_TEST(terms[1].text == "据库");
    auto one = cjk::query_terms("库");
    BOOST_REQUIRE_EQUAL(one.size(), 1u);
    BOOST_TEST(one[0].prefix);
}

BOOST_AUTO_TEST_CASE(terms_are_words_only) {
    auto t = cjk::query_terms("How do I \"quote\" NEAR( foo* -bar, v1.0.21?");
    std::vector<std::string> got;
    for (auto& x : t) got.push_back(x.text);
    std::vector<std::string> want = {"How", "do", "I", "quote", "NEAR", "foo", "bar", "v1.0.21"};
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(match_and_then_or_without_stop_words) {
    auto m = build_match("How do I configure the proxy?");
    BOOST_TEST(m.all == "\"How\" AND \"do\" AND \"I\" AND \"configure\" AND \"the\" AND \"proxy\"");
    BOOST_TEST(m.any == "\"configure\" OR \"proxy\"");
    BOOST_TEST(build_match("?!*\"").all.empty());
    BOOST_TEST(build_match("库").all == "\"库\"*");
}

BOOST_AUTO_TEST_CASE(snippets_are_short_utf8_around_the_match) {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "第" + std::to_string(i) + "行 filler filler filler\n";
    text += "the needle is here\n";
    auto s = make_snippet(text, "needle");
    BOOST_TEST(s.size() <= kSnippetBytes);
    BOOST_TEST(coffer::utf8::valid(s));
    BOOST_TEST(s.rfind("the needle", 0) == 0);
    auto cut = cut_utf8("数据库", 7);  // 3 bytes each: two fit
    BOOST_TEST(cut == "数据");
}

BOOST_AUTO_TEST_SUITE_END()
