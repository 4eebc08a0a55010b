// A format-preserving editor of one member of a JSON document: set or remove the member at a path
// of object keys ("mcpServers" → "coffer") and leave every other byte of the text as it was. The
// agents rewrite their own config files often; Coffer changes only its entry, so a user's layout,
// key order and unrelated entries survive, and `--dry-run` shows a diff of a few lines.
//
// The text is checked as strict JSON (RFC 8259) first; anything else — a trailing comma, a
// comment, a duplicate key on the path, a top level that is not an object — is refused with an
// error and no edit. Inserted values are laid out like the file's own members (its indent unit,
// JSON.stringify style for multi-line objects).
#pragma once

#include "core/result.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::agentconf {

using JsonPath = std::vector<std::string>;

// The value at `path`, or nullopt when some key on the path is missing. Errors: malformed text,
// a value on the path that is not an object.
core::Result<std::optional<boost::json::value>> json_get(std::string_view text, const JsonPath& path);

// `text` with the member at `path` set to `value`: replaced in place when it exists (unchanged
// text when it already holds an equal value), else inserted as the last member of its object,
// creating the missing objects on the path. An empty (or all-whitespace) text is taken as `{}`.
core::Result<std::string> json_set(std::string_view text, const JsonPath& path, const boost::json::value& value);

// `text` without the member at `path` (unchanged when it is missing). With `prune` > 0, an object
// on the path left empty by the removal is removed too, up to `prune` levels (never the top level).
core::Result<std::string> json_remove(std::string_view text, const JsonPath& path, int prune = 0);

// `value` laid out as JSON.stringify(value, null, unit) does, every line after the first prefixed
// by `indent` (the indentation of the line the value starts on).
std::string json_render(const boost::json::value& value, std::string_view unit, std::string_view indent);

}  // namespace coffer::agentconf
