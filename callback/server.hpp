// The HTTP side of coffer-callback: one Asio thread, 127.0.0.1 only. Every request gets its
// answer before anything is forwarded; an event whose signature does not verify gets 401 and
// goes nowhere. With a spool, a verified event is kept there before its 200 (a 500 when it
// cannot be, so the platform delivers it again).
#pragma once

#include "spool.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace coffer::callback {

struct Settings {
    std::string channel;  // the {channel} of POST /seatalk/{channel}
    std::string secret;   // the signing secret (never empty)
    std::uint16_t port = 0;
    Spool* spool = nullptr;  // none: events are forwarded without being kept
};

// One verified event and its spool file's name ("" without a spool).
using Forward = std::function<void(boost::json::object event, std::string spooled)>;

// Starts accepting; returns the bound port. `forward` gets each verified event (not the
// verification challenge) after its 200 was written.
std::uint16_t serve(boost::asio::io_context& io, const Settings& settings, Forward forward,
                    std::function<void(const std::string&)> log);

}  // namespace coffer::callback
