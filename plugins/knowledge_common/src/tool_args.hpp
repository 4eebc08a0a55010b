// Checked arguments of tools and actions. Every check throws sdk::Error(COFFER_E_INVALID) with a
// message an agent or a user can act on ("The argument 'top_k' must be an integer from 1 to
// 100"); the MCP layer turns it into a tool result with isError, the action layer into a 400.
#pragma once

#include "retrieval/types.hpp"

#include <coffer/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::knowledge {

namespace json = boost::json;

inline constexpr std::size_t kMaxQueryBytes = 8 * 1024;
inline constexpr int kMaxTopK = 100;
inline constexpr int kDefaultTopK = 10;

// Refuses a member not in `allowed`, naming what `what` (a tool or action) takes.
void only_keys(const json::object& args, std::initializer_list<std::string_view> allowed, std::string_view what);

// A string argument: valid UTF-8, at most max_bytes, not blank (when required).
std::string required_text(const json::object& args, std::string_view key, std::size_t max_bytes);
std::optional<std::string> optional_text(const json::object& args, std::string_view key, std::size_t max_bytes);
std::optional<std::int64_t> optional_int(const json::object& args, std::string_view key, std::int64_t lo, std::int64_t hi);
std::optional<bool> optional_bool(const json::object& args, std::string_view key);
// "grep", "keyword", "vector" or "hybrid".
std::optional<retrieval::Mode> optional_mode(const json::object& args, std::string_view key);

// What a search takes: query (1..8 KiB), mode?, top_k? (1..100).
struct SearchArgs {
    std::string query;
    std::optional<retrieval::Mode> mode;
    int top_k = kDefaultTopK;
};
SearchArgs search_args(const json::object& args);

}  // namespace coffer::knowledge
