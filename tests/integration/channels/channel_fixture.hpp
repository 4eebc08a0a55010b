// A started test daemon and REST calls on one of its IM channels, shared by the adapter tests
// (channel_echo, telegram): the calls checked for their status, the channel's status, pairing
// codes and counters.
#pragma once

#include "daemon_fixture.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace coffer::test {

struct ChannelFixture : StartedDaemon {
    std::string channel;
    ChannelFixture(const std::vector<std::string>& test_plugins, std::string name)
        : StartedDaemon(test_plugins), channel(std::move(name)) {}

    // An authenticated REST call whose status must be `expect`.
    boost::json::value req(const std::string& method, const std::string& target, const std::string& body, int expect);
    // The agent "fake" running coffer-fake-agent through the claude_code driver.
    void add_fake_agent(const std::string& command);
    boost::json::object status();  // GET /api/v1/channels/<channel> → "channel"
    std::string pair(int ttl_s = 0);
    std::int64_t counter(const char* name);
};

}  // namespace coffer::test
