// The bundled `external` adapter in the real daemon running examples/channel_external (a Node
// adapter speaking JSON lines over stdio, channel_echo's toy protocol on the platform side), with
// coffer-fake-agent as the agent: a paired round trip through a turn, the adapter process killed
// and restarted by the supervisor (and working again), no process left behind once the channel
// is removed, and a bad config refused.
#define BOOST_TEST_MODULE integration_channels_external
#include <boost/test/unit_test.hpp>

#include "channel_fixture.hpp"
#include "eventually.hpp"
#include "line_client.hpp"

#include <signal.h>

#include <cerrno>

namespace json = boost::json;
using namespace coffer::test;
using namespace std::chrono_literals;

namespace {

const std::string kOwner = "1001", kChat = "5000000001";  // the chat id beyond 32 bits

bool alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

struct ExternalFixture : ChannelFixture {
    std::unique_ptr<LineClient> client;
    int next_id = 1;

    ExternalFixture() : ChannelFixture({}, "ext") {
        std::filesystem::create_directories(dir.path() / "work");
        add_fake_agent(COFFER_FAKE_AGENT);
        json::object config{{"agent", "fake"},
                            {"cwd", (dir.path() / "work").string()},
                            {"command", "node"},
                            {"args", json::array{COFFER_EXTERNAL_EXAMPLE, "--port", "0"}},
                            {"capabilities", json::object{{"typing", true}, {"max_text", 500}}}};
        req("POST", "/api/v1/channels", json::serialize(json::object{{"name", "ext"}, {"adapter", "external"}, {"config", config}}), 201);
        connect();
    }
    json::object adapter() { return status().at("status").at("plugin").as_object(); }
    long pid() { return static_cast<long>(adapter().at("pid").as_int64()); }
    void connect() {
        BOOST_TEST_REQUIRE(eventually([&] { return adapter().contains("port") && status().at("health").as_string() == "receiving"; }, 15s),
                           json::serialize(status()));
        client = std::make_unique<LineClient>(static_cast<std::uint16_t>(adapter().at("port").as_int64()));
    }
    void send_acked(const std::string& text) {
        auto id = std::to_string(next_id++);
        client->msg(id, kChat, kOwner, text);
        BOOST_TEST_REQUIRE(client->wait_ack(id), "no ACK for message " << id);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_paired_round_trip_through_the_adapter_process, ExternalFixture) {
    BOOST_TEST(status().at("capabilities").at("max_text").as_int64() == 500);
    send_acked(pair());
    client->until("SEND", "Paired");
    send_acked("hello from node");
    auto lines = client->until("SEND", "echo: hello from node");
    bool typing = false;
    for (auto& l : lines) typing |= l.verb == "TYPING" && l.chat == kChat;
    BOOST_TEST(typing);
    BOOST_TEST(counter("forwarded") == 1);
}

BOOST_FIXTURE_TEST_CASE(a_killed_adapter_is_restarted_and_nothing_is_left_behind, ExternalFixture) {
    send_acked(pair());
    client->until("SEND", "Paired");
    auto first = pid();
    BOOST_REQUIRE(alive(first));
    ::kill(static_cast<pid_t>(first), SIGKILL);
    BOOST_TEST_REQUIRE(eventually([&] { return status().at("health").as_string().find("killed by signal 9") != std::string::npos; }, 10s),
                       json::serialize(status()));
    client.reset();
    connect();  // restarted after the backoff, on a new port
    auto second = pid();
    BOOST_TEST(second != first);
    BOOST_TEST(adapter().at("restarts").as_int64() == 1);
    send_acked("after the restart");
    client->until("SEND", "echo: after the restart");
    // Removing the channel ends the adapter's process.
    req("DELETE", "/api/v1/channels/ext", "", 200);
    BOOST_TEST(eventually([&] { return !alive(second); }, 5s));
    BOOST_TEST(!alive(first));
}

BOOST_FIXTURE_TEST_CASE(a_bad_config_is_refused, ExternalFixture) {
    auto text = json::serialize(
        req("POST", "/api/v1/channels", R"({"name":"bad","adapter":"external","config":{"agent":"fake","command":"node","args":[1]}})", 400));
    BOOST_TEST(text.find("/args/0") != std::string::npos, text);
    text = json::serialize(req("POST", "/api/v1/channels",
                               R"({"name":"bad","adapter":"external","config":{"agent":"fake","command":"node","env":{"T":"credref:bad/name"}}})", 400));
    BOOST_TEST(text.find("/env/T") != std::string::npos, text);
    text = json::serialize(req("POST", "/api/v1/channels", R"({"name":"bad","adapter":"external","config":{"agent":"fake"}})", 400));
    BOOST_TEST(text.find("command") != std::string::npos, text);
    req("GET", "/api/v1/channels/bad", "", 404);
}
