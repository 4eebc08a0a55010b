// The SeaTalk Open Platform stand-in (see CMakeLists.txt) and the signing event sender.
#pragma once

#include "http_client.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace coffer::seatalk_standin {

namespace json = boost::json;

struct Call {
    std::string path;
    std::string authorization;  // the Authorization header
    json::object body;
    std::int64_t code = 0;      // SeaTalk's answer code
};

class Standin {
public:
    Standin(std::string app_id, std::string app_secret);
    ~Standin();
    std::string base_url() const;

    // The current token stops being accepted: the next call with it is answered code 100.
    void expire_token();
    // The next `times` API calls (not token requests) are answered code 101 (rate limited).
    void rate_limit(int times);
    std::vector<Call> calls(const std::string& path = "") const;
    int tokens_issued() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// POSTs `body` to coffer-callback's /seatalk/<channel> as SeaTalk would, signed with `secret`
// (an empty `signature` argument: computed; otherwise sent as given).
test::HttpResult send_event(std::uint16_t port, const std::string& channel, const std::string& body, const std::string& secret,
                            const std::string& signature = "");
// A direct-message event body (message_from_bot_subscriber) with a text and a thread.
std::string dm_event(const std::string& event_id, const std::string& employee_code, const std::string& seatalk_id,
                     const std::string& text, const std::string& thread_id = "");

}  // namespace coffer::seatalk_standin
