// The gateway's side of curation (G-20…G-22) and of the invocation log (G-23): which listed items
// a session may see, which calls are refused before reaching a provider, and what is recorded for
// each tools/call, resources/read and prompts/get. The preferences themselves live in
// host/curation; nothing here knows a kind.
#pragma once

#include "curation/types.hpp"
#include "mcp/trace_context.hpp"
#include "resource/providers.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::curation {
class Curation;
struct ServerPrefs;
}  // namespace coffer::curation

namespace coffer::mcp {

// A call the invocation log records, from routing to its answer.
struct Tracked {
    std::string server, target;  // target: the namespaced name or URI the client used
    curation::Type type = curation::Type::tool;
    std::int64_t ts_ms = 0;
    std::chrono::steady_clock::time_point start;
    bool logged = false;
    bool retried = false;  // sent again after its upstream exited (mcp/retry.hpp)
    std::optional<trace::Span> span;  // the gateway's span: the client sent a traceparent, or spans are exported
    std::int64_t start_unix_ns = 0;   // for the exported span
};

namespace curate {

std::optional<curation::Type> call_type(std::string_view method);  // tools/call, resources/read, prompts/get
std::optional<curation::Type> list_type(std::string_view method);  // tools/list, resources/list, prompts/list
// The provider's own name (or URI) behind an exposed one of `server`.
std::optional<std::string_view> original(curation::Type t, std::string_view server, std::string_view exposed);

// What one provider listed just now: never-seen names get the server's policy (and are recorded).
void observe(curation::Curation* c, std::string_view method, const resource::Provider& p,
             const std::vector<std::pair<std::string, std::string>>& items);

// Which of one provider's listed items (by exposed name) a session sees.
class Filter {
public:
    Filter(curation::Curation* c, std::string_view method, const resource::Provider& p);
    bool keep(std::string_view exposed) const;

private:
    std::shared_ptr<const curation::ServerPrefs> prefs_;
    std::optional<curation::Type> type_;
    std::string server_;
    bool auto_enable_ = true;
};

// The JSON-RPC message of a refused call: "Tool <name> is disabled" (likewise Resource, Prompt).
std::string disabled_message(curation::Type t, std::string_view exposed);
std::string_view disabled_code(curation::Type t);  // TOOL_DISABLED, RESOURCE_DISABLED, PROMPT_DISABLED

}  // namespace curate
}  // namespace coffer::mcp
