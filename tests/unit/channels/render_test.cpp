// Markdown → the HTML subset: markup, escaping of & < >, code blocks with a language, and
// markup that does not close staying literal (so the output always parses).
#include <boost/test/unit_test.hpp>

#include "channels/render.hpp"

using namespace coffer::channels;

BOOST_AUTO_TEST_CASE(inline_markup) {
    BOOST_TEST(markdown_to_html("**bold** and *it* and `a<b`") == "<b>bold</b> and <i>it</i> and <code>a&lt;b</code>");
    BOOST_TEST(markdown_to_html("[site](https://example.com/?a=1&b=2)") ==
               "<a href=\"https://example.com/?a=1&amp;b=2\">site</a>");
    BOOST_TEST(markdown_to_html("# Title") == "<b>Title</b>");
}

BOOST_AUTO_TEST_CASE(escapes_and_leaves_unclosed_markup_literal) {
    BOOST_TEST(markdown_to_html("1 < 2 & 3 > 2") == "1 &lt; 2 &amp; 3 &gt; 2");
    BOOST_TEST(markdown_to_html("a * b and snake_case_name") == "a * b and snake_case_name");
    BOOST_TEST(markdown_to_html("**open") == "**open");
    BOOST_TEST(markdown_to_html("[x](javascript:alert(1))") == "[x](javascript:alert(1))");
}

BOOST_AUTO_TEST_CASE(code_blocks) {
    BOOST_TEST(markdown_to_html("```cpp\nint a = 1 < 2;\n```") == "<pre><code class=\"language-cpp\">int a = 1 &lt; 2;</code></pre>");
    BOOST_TEST(markdown_to_html("```\n**not bold**\n```") == "<pre><code>**not bold**</code></pre>");
    // An unclosed block is closed.
    BOOST_TEST(markdown_to_html("```\nx") == "<pre><code>x</code></pre>");
}
