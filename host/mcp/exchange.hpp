// A downstream request in flight, and the channel its answer (and the messages tied to it:
// progress, log lines, server-initiated requests) goes back on.
#pragma once

#include "mcp/trace_context.hpp"
#include "mcp/versions.hpp"

#include <coffer/abi.h>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace coffer::mcp {

class Call;
class Link;
struct Exchange;
struct Tracked;

class ReplyChannel {
public:
    virtual ~ReplyChannel() = default;
    // A message tied to the request, ahead of the answer. False when this channel cannot carry it
    // (a plain JSON response to a client that does not take event streams, a batch).
    virtual bool related(const std::string& message) = 0;
    // The answer; `http_status` matters only where the answer is itself an HTTP response.
    virtual void answer(const std::string& message, int http_status = 200) = 0;
    // The exchange ends without an answer (the client cancelled it): an open HTTP exchange ends
    // empty (202, or the event stream just ends).
    virtual void drop() {}
};

// 2026-07-28 multi round-trip: questions a provider asked during this request, waiting to be
// answered by the client's retry (inputResponses + requestState).
struct InputWait {
    std::string state;                           // requestState handed to the client
    std::map<std::string, std::uint64_t> keys;   // inputRequests key → provider token
    std::vector<std::pair<std::string, std::string>> queued;  // {key, request JSON} not yet sent
    std::optional<std::pair<std::string, std::string>> outcome;  // {result, error} if the call ended meanwhile
    std::shared_ptr<Exchange> waiting;           // the retry now waiting for the call to end
    std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now();
};

struct Exchange {
    boost::json::value id;
    std::string key;          // rpc::id_key(id)
    std::string method;
    Version version = kLatestLegacy;
    std::shared_ptr<ReplyChannel> reply;
    std::weak_ptr<Link> link;
    coffer_call* call = nullptr;  // its handle, while routed to a provider
    std::string progress_key; // id_key of params._meta.progressToken
    int log_level = -1;       // 2026-07-28: io.modelcontextprotocol/logLevel rank; -1 = no log lines
    boost::json::object capabilities;  // 2026-07-28: the request's client capabilities
    std::map<std::string, std::string> param_headers;  // 2026-07-28: its Mcp-Param-* headers
    // Tasks (2025-11-25, mcp/tasks.hpp): the client's task-augmented tools/call; one the gateway
    // augmented for a client without tasks, then its tasks/result; a tasks/* request by id.
    enum class TaskUse { none, augmented, emulated, emulated_result, by_id };
    TaskUse task = TaskUse::none;
    std::string upstream_task;  // emulated: the upstream's id of the task run for this call
    bool done = false;
    bool cancelled = false;
    std::shared_ptr<InputWait> input;  // 2026-07-28: parked for a retry
    std::shared_ptr<Tracked> tracked;  // a call the invocation log records (G-23; mcp/curate.hpp)
    std::string sent_params;  // tools/call: the params as routed, for the one safe retry (mcp/retry.hpp)
    bool retried = false;
    std::optional<trace::Parent> trace_parent;  // the client's params._meta.traceparent, when valid
};

}  // namespace coffer::mcp
