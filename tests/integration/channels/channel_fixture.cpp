#include "channel_fixture.hpp"

#include <boost/test/unit_test.hpp>

namespace coffer::test {

namespace json = boost::json;

json::value ChannelFixture::req(const std::string& method, const std::string& target, const std::string& body, int expect) {
    int st = 0;
    auto v = d.call_json(method, target, body, &st);
    BOOST_TEST(st == expect, method << " " << target << " -> " << st << " " << json::serialize(v));
    return v;
}

void ChannelFixture::add_fake_agent(const std::string& command) {
    req("POST", "/api/v1/agents",
        json::serialize(json::object{{"name", "fake"}, {"driver", "claude_code"}, {"config", json::object{{"command", command}}}}), 201);
}

json::object ChannelFixture::status() { return req("GET", "/api/v1/channels/" + channel, "", 200).at("channel").as_object(); }

std::string ChannelFixture::pair(int ttl_s) {
    auto v = req("POST", "/api/v1/channels/" + channel + "/pair", ttl_s ? json::serialize(json::object{{"ttl_s", ttl_s}}) : "", 200);
    return std::string(v.at("code").as_string());
}

std::int64_t ChannelFixture::counter(const char* name) { return status().at("counters").at(name).as_int64(); }

}  // namespace coffer::test
