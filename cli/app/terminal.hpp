// Text from elsewhere (the daemon, upstream MCP servers, plugins, skills) made safe to print on a
// terminal: control characters are shown, never obeyed. An ESC sequence, an OSC title or link, a
// CR that rewrites the line, a NUL, a C1 control or a bidirectional override reaches the screen
// as visible text (`\x1b`, `\r`, `\u009b`, `\u202e`), and bytes that are not UTF-8 as `\xff`.
// JSON output (--json) never passes through here: it stays byte-exact.
#pragma once

#include <string>
#include <string_view>

namespace coffer::cli {

enum class Layout {
    line,  // one table cell or one-line value: \n and \t are shown too
    text,  // free text that may span lines: \n and \t are kept, every other control is shown
};

std::string terminal_safe(std::string_view text, Layout layout = Layout::text);

}  // namespace coffer::cli
