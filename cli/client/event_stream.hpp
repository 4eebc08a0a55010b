// Reading one of the daemon's Server-Sent Event streams (GET /api/v1/conversations/{id}/events)
// as it arrives: a blocking loopback exchange, the chunked body decoded incrementally and split
// into events by coffer/sse.hpp. Used by `coffer chat watch` and `chat send --watch`.
#pragma once

#include "client/vault.hpp"
#include "core/result.hpp"

#include <functional>
#include <optional>
#include <string>

namespace coffer::client {

struct StreamedEvent {
    std::string type;  // the `event` field ("message" when absent)
    std::string data;
    std::string id;    // "" when the event had none
};

// Calls `on_event` for each event until it returns false (Ok), the daemon ends the stream (Ok)
// or the exchange fails (DAEMON_UNREACHABLE, or the daemon's error envelope for a non-200).
core::Result<void> read_event_stream(const DaemonInfo& daemon, const std::string& target,
                                     const std::optional<std::string>& last_event_id,
                                     const std::function<bool(const StreamedEvent&)>& on_event);

}  // namespace coffer::client
