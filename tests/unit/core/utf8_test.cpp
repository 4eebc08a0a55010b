// core/utf8: well-formed sequences (Unicode table 3-7), decoding, escaping of the bytes that are not.
#define BOOST_TEST_MODULE core_unit
#include <boost/test/unit_test.hpp>

#include "core/utf8.hpp"

#include <coffer/lines.hpp>

#include <string>

using namespace coffer::core;

BOOST_AUTO_TEST_CASE(sequence_lengths_follow_table_3_7) {
    BOOST_TEST(utf8::sequence_length("a", 0) == 1u);
    BOOST_TEST(utf8::sequence_length("\xc3\xa9", 0) == 2u);          // é
    BOOST_TEST(utf8::sequence_length("\xe2\x80\xae", 0) == 3u);      // U+202E
    BOOST_TEST(utf8::sequence_length("\xf0\x9f\x98\x80", 0) == 4u);  // U+1F600
    // Not well-formed: stray continuation, overlong forms, surrogates, above U+10FFFF, cut short.
    for (std::string bad : {"\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf0\x80\x80\xaf",
                            "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xe2\x80", "\xc3"})
        BOOST_TEST(utf8::sequence_length(bad, 0) == 0u, "bytes of length " << bad.size());
    BOOST_TEST(utf8::sequence_length("a", 1) == 0u);
}

BOOST_AUTO_TEST_CASE(decodes_code_points) {
    BOOST_TEST(static_cast<unsigned>(utf8::decode("\xc2\x9b", 0, 2)) == 0x9Bu);
    BOOST_TEST(static_cast<unsigned>(utf8::decode("\xe2\x81\xa6", 0, 3)) == 0x2066u);
    BOOST_TEST(static_cast<unsigned>(utf8::decode("\xf4\x8f\xbf\xbf", 0, 4)) == 0x10FFFFu);
}

BOOST_AUTO_TEST_CASE(finds_the_first_invalid_byte) {
    BOOST_TEST(utf8::first_invalid("plain ascii") == std::string::npos);
    BOOST_TEST(utf8::first_invalid("caf\xc3\xa9 \xe2\x80\xae") == std::string::npos);
    BOOST_TEST(utf8::first_invalid("sk\xffill") == 2u);
    BOOST_TEST(utf8::first_invalid("ok\xc3") == 2u);  // cut short at the end
}

BOOST_AUTO_TEST_CASE(escapes_only_invalid_bytes) {
    BOOST_TEST(utf8::escape_invalid("no resource sk\xffill:x") == "no resource sk\\xffill:x");
    BOOST_TEST(utf8::escape_invalid("caf\xc3\xa9") == "caf\xc3\xa9");
    BOOST_TEST(utf8::escape_invalid("\xe2\x80") == "\\xe2\\x80");
    BOOST_TEST(utf8::escape_invalid(std::string("a\0b", 3)) == std::string("a\0b", 3));  // valid UTF-8
    BOOST_TEST(utf8::byte_escape(0x1b) == "\\x1b");
}

BOOST_AUTO_TEST_CASE(cuts_between_characters) {
    const std::string s = "ab读取";  // 2 ASCII bytes, then two 3-byte characters
    BOOST_TEST(utf8::cut_before(s, 0) == 0u);
    BOOST_TEST(utf8::cut_before(s, 2) == 2u);
    BOOST_TEST(utf8::cut_before(s, 3) == 2u);  // inside 读
    BOOST_TEST(utf8::cut_before(s, 4) == 2u);
    BOOST_TEST(utf8::cut_before(s, 5) == 5u);  // 读 whole
    BOOST_TEST(utf8::cut_before(s, 7) == 5u);
    BOOST_TEST(utf8::cut_before(s, 8) == 8u);
    BOOST_TEST(utf8::cut_before(s, 100) == 8u);
    BOOST_TEST(utf8::cut_before("", 5) == 0u);
}

BOOST_AUTO_TEST_CASE(clips_whole_characters_and_marks_the_cut) {
    BOOST_TEST(utf8::clip("ab读取", 8) == "ab读取");  // fits: unchanged, no mark
    BOOST_TEST(utf8::clip("ab读取", 4) == "ab…");     // never half of 读
    BOOST_TEST(utf8::clip("ab读取", 5) == "ab读…");
    BOOST_TEST(utf8::clip("", 0) == "");
}

BOOST_AUTO_TEST_CASE(the_last_line_a_process_said) {
    BOOST_TEST(coffer::last_line("starting\ncoffer-daemon: refused\n\n", 500) == "coffer-daemon: refused");
    BOOST_TEST(coffer::last_line("one line, no end", 500) == "one line, no end");
    BOOST_TEST(coffer::last_line("first\r\n  second \t\r\n", 500) == "  second");  // its end trimmed
    BOOST_TEST(coffer::last_line(" \n\t\r\n", 500) == "");
    BOOST_TEST(coffer::last_line("x\nerror: 读取失败", 12) == "error: 读…");  // cut between characters
}
