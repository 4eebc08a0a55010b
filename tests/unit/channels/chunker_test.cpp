// The chunker: limits in UTF-16 units / code points / bytes, paragraph preference, code blocks
// closed and reopened (never left open), no cut inside a character or a surrogate pair.
#define BOOST_TEST_MODULE unit_channels
#include <boost/test/unit_test.hpp>

#include "channels/chunker.hpp"

#include <string>

using namespace coffer::channels;

namespace {
std::size_t fences(const std::string& s) {
    std::size_t n = 0;
    for (auto at = s.find("```"); at != std::string::npos; at = s.find("```", at + 3)) ++n;
    return n;
}
}  // namespace

BOOST_AUTO_TEST_CASE(measures_in_each_unit) {
    std::string s = "a\xC3\xA9\xF0\x9F\x98\x80";  // a, é, 😀
    BOOST_TEST(measure(s, Units::bytes) == 7u);
    BOOST_TEST(measure(s, Units::codepoints) == 3u);
    BOOST_TEST(measure(s, Units::utf16) == 4u);
}

BOOST_AUTO_TEST_CASE(short_text_is_one_chunk) {
    auto c = chunk("hello", 4096, Units::utf16);
    BOOST_REQUIRE_EQUAL(c.size(), 1u);
    BOOST_TEST(c[0] == "hello");
}

BOOST_AUTO_TEST_CASE(ten_thousand_characters_with_code_blocks) {
    std::string text;
    for (int i = 0; text.size() < 10000; ++i) {
        text += "Paragraph " + std::to_string(i) + " with some words in it, and an emoji \xF0\x9F\x98\x80.\n\n";
        if (i % 4 == 0) {
            text += "```python\n";
            for (int l = 0; l < 60; ++l) text += "print('line " + std::to_string(i) + "." + std::to_string(l) + "')\n";
            text += "```\n\n";
        }
    }
    auto chunks = chunk(text, 4096, Units::utf16);
    BOOST_TEST(chunks.size() >= 3u);
    std::string joined;
    for (auto& c : chunks) {
        BOOST_TEST(measure(c, Units::utf16) <= 4096u);
        BOOST_TEST(fences(c) % 2 == 0u, "an open code block");
        joined += c;
    }
    // Every code line arrives exactly once; a reopened block keeps its language.
    for (int l = 0; l < 60; ++l) {
        auto line = "print('line 0." + std::to_string(l) + "')";
        auto at = joined.find(line);
        BOOST_TEST((at != std::string::npos && joined.find(line, at + 1) == std::string::npos), line);
    }
    for (std::size_t i = 1; i < chunks.size(); ++i)
        if (chunks[i].rfind("```", 0) == 0) BOOST_TEST(chunks[i].rfind("```python\n", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(prefers_paragraph_boundaries) {
    std::string a(150, 'a'), b(150, 'b');
    auto chunks = chunk(a + "\n\n" + b, 200, Units::bytes);
    BOOST_REQUIRE_EQUAL(chunks.size(), 2u);
    BOOST_TEST(chunks[0] == a);
    BOOST_TEST(chunks[1] == b);
}

BOOST_AUTO_TEST_CASE(never_cuts_a_surrogate_pair_or_a_character) {
    std::string emojis;
    for (int i = 0; i < 300; ++i) emojis += "\xF0\x9F\x98\x80";  // one line, no spaces
    auto chunks = chunk(emojis, 101, Units::utf16);
    std::string joined;
    for (auto& c : chunks) {
        BOOST_TEST(measure(c, Units::utf16) <= 101u);
        BOOST_TEST(c.size() % 4 == 0u);
        joined += c;
    }
    BOOST_TEST(joined == emojis);
}
