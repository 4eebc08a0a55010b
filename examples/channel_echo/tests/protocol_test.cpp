// The line protocol: escaping round-trips newlines and backslashes; MSG lines parse, others do not.
#include "line_protocol.hpp"

#include <cstdio>

int main() {
    using namespace channel_echo;
    int failures = 0;
    auto check = [&](bool ok, const char* what) {
        if (!ok) std::fprintf(stderr, "FAILED: %s\n", what), ++failures;
    };
    std::string text = "line one\nline \\two\r\n";
    check(escape(text).find('\n') == std::string::npos, "escaped text has no newline");
    check(unescape(escape(text)) == text, "escape round-trips");
    auto m = parse_inbound("MSG 7 42 1001 hello\\nworld");
    check(m && m->id == "7" && m->chat == "42" && m->sender == "1001" && m->text == "hello\nworld", "MSG parses");
    check(!parse_inbound("MSG 7 42"), "a short MSG is refused");
    check(!parse_inbound("SEND 1 2 x"), "other lines are not inbound");
    return failures == 0 ? 0 : 1;
}
