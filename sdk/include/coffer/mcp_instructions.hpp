// A provider's MCP server instructions, for the gateway's tool search (SPEC G-24): a provider may
// put its server's own instructions (the `instructions` of the initialize or server/discover
// result) into the `_meta` of the `tools/list` results it gives the host, under kMetaKey. The
// host indexes them as a field of every tool of that server and never passes the key on to
// clients (the aggregated list is the host's own). Optional: a provider without instructions
// leaves the result alone.
#pragma once

#include <coffer/raw_json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace coffer::mcp_instructions {

inline constexpr std::string_view kMetaKey = "io.coffer/serverInstructions";

// `result` (a raw JSON object) with `instructions` under _meta[kMetaKey], inserted into the raw
// text (the rest of the result byte for byte, any other _meta members kept); the result
// unchanged when it is not an object or the instructions are empty.
inline std::string attach(std::string_view result, std::string_view instructions) {
    if (instructions.empty() || !raw_json::is_object(result)) return std::string(result);
    std::string field = raw_json::quote(kMetaKey) + ":" + raw_json::quote(instructions);
    if (auto meta = raw_json::member(result, "_meta"); meta && raw_json::is_object(*meta))
        return raw_json::splice(result, *meta, raw_json::prepend_members(*meta, field));
    return raw_json::prepend_members(result, "\"_meta\":{" + field + "}");
}

// The instructions a tools/list result carries under _meta[kMetaKey], if any. Scans the raw text
// (raw_json.hpp) rather than parsing a list that may hold thousands of tools.
inline std::optional<std::string> read(std::string_view result) {
    auto meta = raw_json::member(result, "_meta");
    if (!meta) return std::nullopt;
    auto text = raw_json::member(*meta, kMetaKey);
    return text ? raw_json::decode_string(*text) : std::nullopt;
}

}  // namespace coffer::mcp_instructions
