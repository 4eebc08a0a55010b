// Coffer's built-in tools (`coffer__*`, SPEC G-24): today one, `coffer__search_tools`, a ranked
// search (host/toolsearch) over the tools the calling session can see. It is listed in every
// session's tools/list (in name order like every other tool), answered by the gateway itself —
// a `coffer__` name is never routed to a provider, and no provider may be named `coffer` — and it
// never finds itself.
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
inline constexpr int kDefaultTopK = 5;
inline constexpr int kMaxTopK = 20;
inline constexpr std::size_t kMaxQueryBytes = 2000;

// A name in Coffer's own namespace (whether or not such a tool exists).
bool is_builtin(std::string_view exposed_name) noexcept;
// The server name reserved for the built-ins, in any letter case.
bool reserved_server(std::string_view server) noexcept;
// Adds the built-in tools' {name, raw definition} to a sorted, de-duplicated tools/list.
void add_tools(std::vector<const std::pair<std::string, std::string>*>& sorted_items);
// The raw JSON definition of coffer__search_tools.
const std::string& search_tools_definition();

}  // namespace builtin

class Builtins {
public:
    // tools/call of a `coffer__` name: answered on `ex`, now or when the session's tools are known.
    static void call(Session& session, const std::shared_ptr<Exchange>& ex, boost::json::object params);

private:
    // What identifies the session's current tool lists when all of them are cached and fresh.
    static std::optional<std::string> memo_key(Session& session);
};

}  // namespace coffer::mcp
