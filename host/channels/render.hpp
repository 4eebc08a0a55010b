// Rendering an agent's Markdown for a platform, chosen by the adapter's "markdown" capability:
// "markdown" passes it through, "plain" sends it as written, "html" turns it into the small HTML
// subset IM platforms accept (b, i, s, code, pre, a; only & < > escaped). Markup that does not
// close stays literal text, so the output is always well-formed.
#pragma once

#include <string>
#include <string_view>

namespace coffer::channels {

std::string escape_html(std::string_view text);
std::string markdown_to_html(std::string_view markdown);

}  // namespace coffer::channels
