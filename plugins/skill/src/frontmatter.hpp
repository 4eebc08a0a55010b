// SKILL.md = a YAML frontmatter block between '---' lines, then Markdown. This parses the
// frontmatter's YAML into JSON. It reads the subset of YAML that skill frontmatter uses and
// refuses the rest with a line number, rather than guessing:
//   - block mappings (`key: value`) and sequences (`- item`), nested by indentation (spaces only);
//   - plain, 'single-' and "double-quoted" scalars, also continued over several lines;
//   - literal `|` and folded `>` block scalars with chomping (+/-) and indentation indicators;
//   - flow sequences `[a, b]` and mappings `{k: v}`;
//   - comments.
// Not supported (an error says so): anchors and aliases (&a, *a), tags (!!str), complex keys
// (? k), several documents. Every scalar becomes a JSON string, except `~`, `null` and an empty
// value, which become null (so `version: 1.0` in metadata is the string "1.0").
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace coffer::plugins::skill {

struct SkillMd {
    boost::json::object frontmatter;  // the parsed fields
    std::string body;                 // the Markdown after the closing '---'
    std::vector<std::string> errors;  // "line 3: …" (lines of SKILL.md); empty when it parsed
    bool ok() const noexcept { return errors.empty(); }
};

// Splits SKILL.md text into frontmatter and body and parses the frontmatter.
SkillMd parse_skill_md(std::string_view text);

// Parses YAML text (the subset above) whose first line is line `first_line` of its file. The
// document must be a mapping (or empty). Errors go to `errors` as "line N: …".
boost::json::object parse_yaml_mapping(std::string_view text, int first_line, std::vector<std::string>& errors);

}  // namespace coffer::plugins::skill
