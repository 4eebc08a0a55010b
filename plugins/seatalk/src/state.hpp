// What a running SeaTalk channel's handlers share with status(): health, the callback port,
// counters, and which chats are groups (replies to a group go to group_chat).
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <mutex>
#include <set>
#include <string>

namespace coffer::seatalk {

struct SeaTalkState {
    std::mutex mu;
    std::string health = "not receiving: not started";
    std::int64_t callback_port = 0;
    std::int64_t events = 0, sent = 0, send_failed = 0, typing = 0, token_refreshes = 0, rate_limited = 0;
    std::set<std::string> groups;

    boost::json::object to_json() {
        std::lock_guard<std::mutex> g(mu);
        return boost::json::object{{"health", health},
                                   {"callback_port", callback_port},
                                   {"counters", boost::json::object{{"events", events}, {"sent", sent}, {"send_failed", send_failed},
                                                                    {"typing", typing}, {"token_refreshes", token_refreshes},
                                                                    {"rate_limited", rate_limited}}}};
    }
};

}  // namespace coffer::seatalk
