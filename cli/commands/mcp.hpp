// Helpers of `coffer mcp …` that tests use directly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coffer::cli {

// Splits `coffer mcp add --stdio "<cmd args>"` into words with shell-like quoting (docs/cli.md,
// "Splitting --stdio"): blanks separate words; '…' is literal; "…" is literal except \" and \\;
// outside quotes a backslash makes the next character literal; adjacent parts join ("a"'b'c →
// abc); '' and "" give an empty word. Nothing else is special: no variables, globs, ~, pipes or
// redirections. Throws std::invalid_argument for an unterminated quote or a trailing backslash.
std::vector<std::string> split_command_line(std::string_view text);

class Registry;
// mcp_curation.cpp: `coffer mcp tools`, `coffer mcp tool|resource|prompt enable|disable`,
// `coffer mcp invocations`.
void register_mcp_curation_commands(Registry& r);
// mcp_login.cpp: `coffer mcp login`.
void register_mcp_login_command(Registry& r);

}  // namespace coffer::cli
