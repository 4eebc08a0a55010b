// A format-preserving editor of one table of a TOML document (Codex's config.toml): set string or
// string-array keys of a table such as [mcp_servers.coffer], or remove that table with its
// sub-tables, and leave every other byte — comments, blank lines, other tables — as it was.
//
// The text is scanned line by line with TOML's lexical rules (comments, the four string forms,
// multi-line arrays and inline tables, table headers); text that does not scan is refused. So is
// a table defined in a form this editor does not rewrite (dotted keys such as
// `mcp_servers.coffer.command = …`, or an inline table `coffer = {…}` under [mcp_servers]): the
// error says so and nothing is edited.
#pragma once

#include "core/result.hpp"

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace coffer::agentconf {

using TomlPath = std::vector<std::string>;                              // ["mcp_servers", "coffer"]
using TomlValue = std::variant<std::string, std::vector<std::string>>;  // a string or an array of strings

struct TomlKey {
    std::string key;
    TomlValue value;
};

// The table at `path`: whether its header is there, and the string / string-array keys it holds
// (keys of other types are left out).
struct TomlTable {
    bool exists = false;
    std::vector<TomlKey> keys;
};
core::Result<TomlTable> toml_get_table(std::string_view text, const TomlPath& path);

// `text` with the table at `path` holding `keys` (in that order when they are written): a key
// already equal is left alone, one with another value has its value replaced (a trailing comment
// kept), a missing one is inserted after the header or the previous key. A missing table is
// inserted after the last table whose name starts with path[0] (keeping such tables together),
// else at the end, with a blank line before it. Unchanged text when nothing differs.
core::Result<std::string> toml_set_table(std::string_view text, const TomlPath& path, const std::vector<TomlKey>& keys);

// `text` without the table at `path` and its sub-tables ([path.*]), with the blank line that
// separated it from what came before. Unchanged when the table is missing.
core::Result<std::string> toml_remove_table(std::string_view text, const TomlPath& path);

// A TOML basic string ("…", escaped) and an inline array of them.
std::string toml_quote(std::string_view s);
std::string toml_render(const TomlValue& value);

}  // namespace coffer::agentconf
