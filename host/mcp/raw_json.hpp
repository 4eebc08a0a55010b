// Working on JSON text without rebuilding it: the gateway splices upstream results into its own
// messages byte for byte (G-3) and rewrites a single member (a tool's name, a resource's URI)
// while every other byte of an item stays as the upstream sent it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::mcp::raw {

struct Member {
    std::string key;         // decoded
    std::size_t value_begin; // offsets into the object text
    std::size_t value_end;
};

// True when `text` is exactly one JSON object (whitespace around it allowed), nested at most
// `max_depth` deep, in valid UTF-8.
bool is_object(std::string_view text, int max_depth = 128);

// The top-level members of an object text, in order. False when `text` is not an object.
// Bounds-checked on any input; meant for text that passed is_object().
bool members(std::string_view text, std::vector<Member>& out);
// The items of an array text (each a view into `text`).
bool items(std::string_view text, std::vector<std::string_view>& out);
// The value of one top-level member, if present (of a duplicated key: the last, as parsers do).
std::optional<std::string_view> member(std::string_view object, std::string_view key);

// A JSON string token (with its quotes) decoded; nothing for anything else.
std::optional<std::string> decode_string(std::string_view token);
// `s` as a JSON string literal.
std::string quote(std::string_view s);

// `object` with its top-level member `key`'s value (the last, if duplicated) replaced by `value_text`.
std::optional<std::string> replace_member(std::string_view object, std::string_view key, std::string_view value_text);
// `object` with `fields` ("\"a\":1,\"b\":2") inserted as its first members.
std::string prepend_members(std::string_view object, std::string_view fields);

}  // namespace coffer::mcp::raw
