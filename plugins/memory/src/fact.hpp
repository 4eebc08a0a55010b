// One remembered fact as a file: a small YAML frontmatter (id, created, updated, tags, source,
// project) and the fact's text. The file is named "<slug of the fact>-<id>.md", so a fact is
// found by id from its name alone, and a person browsing memory/ sees what each file holds.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::plugins::memory {

inline constexpr std::size_t kMaxFactBytes = 8 * 1024;
inline constexpr std::size_t kMaxTags = 10;
inline constexpr std::size_t kMaxTagBytes = 32;

struct Fact {
    std::string id;       // 8 lower-case hex digits
    std::string created;  // UTC ISO 8601
    std::string updated;
    std::vector<std::string> tags;
    std::string source;   // the agent (or client) that remembered it; "" when unknown
    std::string project;  // the project folder, for project facts
    std::string text;
};

// A fresh random id.
std::string new_id();
// True when `id` looks like one (8 lower-case hex digits).
bool valid_id(std::string_view id);
// "<slug of the first words>-<id>.md" ("fact-<id>.md" when the text has no ASCII words).
std::string file_name(const Fact& f);
// The id in a fact file's name, or "" when the name is not one.
std::string id_from_name(std::string_view name);

// "" when `tag` can be a tag (1-32 of [A-Za-z0-9._-]), else why not.
std::string tag_problem(std::string_view tag);
// A value safe on one frontmatter line (control characters dropped, trimmed, at most 200 bytes).
std::string one_line(std::string_view s);

std::string render(const Fact& f);
// The fact in a file's text; tolerant of hand edits (missing fields stay empty, text without
// frontmatter is all text).
Fact parse(std::string_view text);

}  // namespace coffer::plugins::memory
