// The HTTP side of coffer-callback: one Asio thread, 127.0.0.1 only. Every request gets its
// answer before anything is forwarded; an event whose signature does not verify gets 401 and
// goes nowhere.
#pragma once

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
};

// Starts accepting; returns the bound port. `forward` gets each verified event (not the
// verification challenge) after its 200 was written.
std::uint16_t serve(boost::asio::io_context& io, const Settings& settings,
                    std::function<void(boost::json::object)> forward,
                    std::function<void(const std::string&)> log);

}  // namespace coffer::callback
