// Agent turn handles (ABI 1.5 coffer_turn*) are numbers, like the MCP handles (ADR 0026): the
// orchestrator issues a fresh 64-bit number per turn, never reused, so a driver's late event on
// a finished turn finds nothing. turn_event carries no coffer_host, so the receiver of every
// driver's events is set once for the process (by the daemon, before turns can start).
#pragma once

#include <coffer/abi.h>

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <memory>

namespace coffer::plugin {

inline coffer_turn* turn_handle(std::uint64_t n) { return reinterpret_cast<coffer_turn*>(static_cast<std::uintptr_t>(n)); }
inline std::uint64_t turn_number(coffer_turn* t) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(t)); }

// Receives an event (an object with a string "type") of turn `turn`. Any thread; must not block.
// Returns COFFER_E_NOT_FOUND for a turn that is over or unknown.
using TurnSink = std::function<coffer_status(std::uint64_t turn, boost::json::object event)>;

void set_turn_sink(std::shared_ptr<const TurnSink> sink);  // nullptr: none (events refused)
std::shared_ptr<const TurnSink> current_turn_sink();

}  // namespace coffer::plugin
