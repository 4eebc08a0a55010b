// Channel handles (ABI 1.6 coffer_channel*) are numbers, like turn handles (ADR 0026): the channel
// core issues a fresh 64-bit number each time it starts an adapter, never reused, so an adapter's
// late inbound call after stop finds nothing. channel_inbound carries no coffer_host, so the
// receiver of every adapter's messages is set once for the process (by the daemon).
#pragma once

#include <coffer/abi.h>

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <memory>

namespace coffer::plugin {

inline coffer_channel* channel_handle(std::uint64_t n) {
    return reinterpret_cast<coffer_channel*>(static_cast<std::uintptr_t>(n));
}
inline std::uint64_t channel_number(coffer_channel* c) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(c)); }

// The adapter's acknowledgement: called exactly once with the outcome (see abi.h).
using ChannelAck = std::function<void(coffer_status)>;

// Receives a checked envelope of channel `channel`. Any thread; must not block. Returns
// COFFER_E_NOT_FOUND for a channel that is not started (then `ack` is not called).
using ChannelSink = std::function<coffer_status(std::uint64_t channel, boost::json::object envelope, ChannelAck ack)>;

void set_channel_sink(std::shared_ptr<const ChannelSink> sink);  // nullptr: none (messages refused)
std::shared_ptr<const ChannelSink> current_channel_sink();

// The envelope's shape (abi.h): "id", "chat", "sender", "text" strings; "sender_name", "thread",
// "chat_type" optional strings. Returns an empty string when it is good, else what is wrong.
std::string check_envelope(const boost::json::object& envelope);

}  // namespace coffer::plugin
