// Coffer's built-in tools (`coffer__*`, SPEC G-24): `coffer__search_tools`, a ranked search
// (host/toolsearch) over the tools the calling session can see, listed in every session's
// tools/list; and `coffer__channel_reply`, listed only in sessions that listen to IM channels
// (channel_tap.cpp, ADR 0041). They are listed in name order like every other tool and answered
// by the gateway itself — a `coffer__` name is never routed to a provider, and no provider may be
// named `coffer` — and the search never finds them.
#pragma once

#include "mcp/exchange.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::mcp {

class Session;

namespace builtin {

inline constexpr std::string_view kServer = "coffer";  // the gateway itself, in the invocation log
inline constexpr std::string_view kPrefix = "coffer__";
inline constexpr std::string_view kSearchTools = "coffer__search_tools";
inline constexpr std::string_view kChannelReply = "coffer__channel_reply";
inline constexpr int kDefaultTopK = 5;
inline constexpr int kMaxTopK = 20;
inline constexpr std::size_t kMaxQueryBytes = 2000;

// A name in Coffer's own namespace (whether or not such a tool exists).
bool is_builtin(std::string_view exposed_name) noexcept;
// The server name reserved for the built-ins, in any letter case.
bool reserved_server(std::string_view server) noexcept;
// Adds the built-in tools' {name, raw definition} to a sorted, de-duplicated tools/list
// (coffer__channel_reply only for a session that listens to channels).
void add_tools(std::vector<const std::pair<std::string, std::string>*>& sorted_items, bool channel_reply);
// The raw JSON definitions of coffer__search_tools and coffer__channel_reply.
const std::string& search_tools_definition();
const std::string& channel_reply_definition();
// A tools/call result of one text block.
std::string text_result(const std::string& text, bool is_error);

}  // namespace builtin

class Builtins {
public:
    // tools/call of a `coffer__` name: answered on `ex`, now or when the session's tools are known.
    static void call(Session& session, const std::shared_ptr<Exchange>& ex, boost::json::object params);
    // The daemon is stopping: a tool search embedding tools stops between batches and nothing
    // new is embedded, so the search threads end within one request to the endpoint.
    static void stopping();

private:
    // What identifies the session's current tool lists when all of them are cached and fresh.
    static std::optional<std::string> memo_key(Session& session);
};

}  // namespace coffer::mcp
