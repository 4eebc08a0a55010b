// Live invocations (the web console's "Invocations" page): every call the gateway records in the
// invocation log is also published on the event bus topic "mcp/invocations", and
// GET /api/v1/mcp/invocations/events streams that topic as Server-Sent Events (`invocation`
// events: {ts, session, agent, server, type, target, duration_ms, outcome, error_code}), through
// the same bounded, gap-marking subscriber streams as conversations (chat/sse_stream.hpp).
#pragma once

#include "api/api.hpp"
#include "curation/invocations.hpp"
#include "events/bus.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>

namespace coffer::daemon {

void add_invocation_stream(api::Api& api, curation::InvocationLog& log, events::Bus& bus,
                           boost::asio::any_io_executor network, std::chrono::milliseconds heartbeat);

}  // namespace coffer::daemon
