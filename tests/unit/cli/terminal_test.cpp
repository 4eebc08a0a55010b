// cli/app/terminal + safe_output + format: control characters, bidi overrides and invalid UTF-8
// shown as escapes, never passed to the terminal; plain text (UTF-8 included) unchanged.
#define BOOST_TEST_MODULE cli_unit
#include <boost/test/unit_test.hpp>

#include "app/format.hpp"
#include "app/safe_output.hpp"
#include "app/terminal.hpp"

#include <sstream>
#include <string>

using namespace coffer::cli;

namespace {
// No byte a terminal acts on: C0 (other than \n, \t when allowed), DEL, C1 (as UTF-8), ESC.
bool inert(const std::string& s, bool allow_newline) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n' && allow_newline) continue;
        if (c == '\t' && allow_newline) continue;
        if (c < 0x20 || c == 0x7F) return false;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return false;
        if (c == 0xE2 && s.compare(i, 2, "\xe2\x80") == 0 && i + 2 < s.size() &&
            static_cast<unsigned char>(s[i + 2]) >= 0xAA && static_cast<unsigned char>(s[i + 2]) <= 0xAE)
            return false;
    }
    return true;
}
}  // namespace

BOOST_AUTO_TEST_CASE(plain_text_is_unchanged) {
    BOOST_TEST(terminal_safe("hello, world") == "hello, world");
    BOOST_TEST(terminal_safe("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80") ==
               "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
    BOOST_TEST(terminal_safe("C:\\path\\x1b is text") == "C:\\path\\x1b is text");
}

BOOST_AUTO_TEST_CASE(controls_are_shown_not_obeyed) {
    // ESC sequences, an OSC title and an OSC-8 link, CR, NUL, BEL, DEL.
    BOOST_TEST(terminal_safe("\x1b[2J\x1b[31mred") == "\\x1b[2J\\x1b[31mred");
    BOOST_TEST(terminal_safe("\x1b]0;pwned\x07title") == "\\x1b]0;pwned\\x07title");
    BOOST_TEST(terminal_safe("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\") ==
               "\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\");
    BOOST_TEST(terminal_safe("safe\rEVIL") == "safe\\rEVIL");
    BOOST_TEST(terminal_safe(std::string("a\0b", 3)) == "a\\x00b");
    BOOST_TEST(terminal_safe("del\x7f") == "del\\x7f");
    // C1 controls as UTF-8 (U+009B is a one-byte CSI for some terminals), bidi overrides/isolates.
    BOOST_TEST(terminal_safe("\xc2\x9b" "31m") == "\\u009b31m");
    BOOST_TEST(terminal_safe("\xc2\x85") == "\\u0085");
    BOOST_TEST(terminal_safe("abc\xe2\x80\xae" "cba") == "abc\\u202ecba");
    BOOST_TEST(terminal_safe("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9") == "\\u202a\\u2066\\u2069");
    // Bytes that are not UTF-8.
    BOOST_TEST(terminal_safe("sk\xffill \xe2\x80") == "sk\\xffill \\xe2\\x80");
}

BOOST_AUTO_TEST_CASE(newlines_and_tabs_depend_on_layout) {
    BOOST_TEST(terminal_safe("line 1\nline 2\tend") == "line 1\nline 2\tend");
    BOOST_TEST(terminal_safe("line 1\nline 2\tend", Layout::line) == "line 1\\nline 2\\tend");
    BOOST_TEST(terminal_safe("a\r\nb", Layout::text) == "a\\r\nb");
}

BOOST_AUTO_TEST_CASE(every_byte_value_comes_out_inert) {
    std::string all;
    for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
    BOOST_TEST(inert(terminal_safe(all, Layout::line), false));
    BOOST_TEST(inert(terminal_safe(all, Layout::text), true));
    // Rendering twice changes nothing more: escapes are plain text.
    auto once = terminal_safe(all, Layout::line);
    BOOST_TEST(terminal_safe(once, Layout::line) == once);
}

BOOST_AUTO_TEST_CASE(safe_output_renders_whatever_is_written) {
    std::ostringstream sink;
    {
        SafeOutput out(sink);
        out << "name: " << "\x1b]0;x\x07" << '\n' << "desc: multi\nline\t" << "\xe2\x80";
        out << "\xae" << " tail";  // a sequence split across writes is kept whole
        out.flush();
        BOOST_TEST(sink.str() == "name: \\x1b]0;x\\x07\ndesc: multi\nline\t\\u202e tail");
        out << "pending \x1b";
    }  // destruction writes what is pending
    BOOST_TEST(sink.str().substr(sink.str().size() - 12) == "pending \\x1b");
}

BOOST_AUTO_TEST_CASE(table_cells_are_one_line_and_aligned) {
    std::ostringstream out;
    print_table(out, {"NAME", "DESCRIPTION"}, {{"a\x1b[1m", "two\nlines"}, {"bb", "ok"}});
    BOOST_TEST(out.str() == "NAME      DESCRIPTION\n"
                            "a\\x1b[1m  two\\nlines\n"
                            "bb        ok\n");
}
