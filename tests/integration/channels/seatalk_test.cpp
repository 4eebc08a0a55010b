// The bundled seatalk adapter in the real daemon: coffer-callback started by it on loopback, the
// SeaTalk Open Platform stand-in (tests/seatalk_standin) for tokens and replies, and an event
// sender that signs like SeaTalk; coffer-fake-agent as the agent. A bad or missing signature →
// 401 and nothing forwarded; the URL challenge echoed; pairing and replies through single_chat
// with thread_id inside "message"; the token cached, and refreshed once on code 100; an event
// delivered twice answered once; an empty signing secret is a configuration error.
#define BOOST_TEST_MODULE integration_channels_seatalk
#include <boost/test/unit_test.hpp>

#include "channel_fixture.hpp"
#include "eventually.hpp"
#include "standin.hpp"

#include <coffer/sha256.hpp>

#include <thread>

namespace st = coffer::seatalk_standin;
namespace json = boost::json;
using namespace coffer::test;
using namespace std::chrono_literals;

namespace {

// The app's two secrets, and the owner as SeaTalk names them (employee code: the chat).
const std::string kAppSecret = "st-app-secret-Q8v2", kSigning = "st-signing-secret-M4k7";
const std::string kEmployee = "e_12345678", kSeatalkId = "1239487273";

struct SeaTalkFixture : ChannelFixture {
    st::Standin platform{"app-1", kAppSecret};
    int next_event = 1;

    SeaTalkFixture() : ChannelFixture({}, "st") {
        std::filesystem::create_directories(dir.path() / "work");
        req("POST", "/api/v1/credentials", json::serialize(json::object{{"ref", "st-app"}, {"value", kAppSecret}}), 201);
        req("POST", "/api/v1/credentials", json::serialize(json::object{{"ref", "st-sign"}, {"value", kSigning}}), 201);
        add_fake_agent(COFFER_FAKE_AGENT);
        json::object config{{"agent", "fake"},          {"cwd", (dir.path() / "work").string()}, {"app_id", "app-1"},
                            {"app_secret", "credref:st-app"}, {"signing_secret", "credref:st-sign"}, {"api_base", platform.base_url()}};
        req("POST", "/api/v1/channels", json::serialize(json::object{{"name", "st"}, {"adapter", "seatalk"}, {"config", config}}), 201);
        BOOST_TEST_REQUIRE(eventually([&] { return status().at("health").as_string() == "receiving"; }, 10s), json::serialize(status()));
    }
    ~SeaTalkFixture() {
        for (auto& e : std::filesystem::recursive_directory_iterator(d.vault()))
            if (e.is_regular_file()) {
                auto text = read_text(e.path());
                BOOST_TEST(text.find(kSigning) == std::string::npos, "the signing secret is in " << e.path());
                BOOST_TEST(text.find(kAppSecret) == std::string::npos, "the app secret is in " << e.path());
            }
    }
    std::uint16_t port() { return static_cast<std::uint16_t>(status().at("status").at("plugin").at("callback_port").as_int64()); }
    HttpResult dm(const std::string& text, const std::string& thread = "th-1", std::string id = "") {
        if (id.empty()) id = "ev-" + std::to_string(next_event++);
        auto r = st::send_event(port(), "st", st::dm_event(id, kEmployee, kSeatalkId, text, thread), kSigning);
        BOOST_TEST(r.status == 200, r.body);
        return r;
    }
    // The replies' contents to the owner, in order.
    std::vector<std::string> replies() {
        std::vector<std::string> out;
        for (auto& c : platform.calls("/messaging/v2/single_chat"))
            if (c.code == 0) out.emplace_back(c.body.at("message").at("text").at("content").as_string());
        return out;
    }
    std::size_t count_replies(const std::string& needle) {
        std::size_t n = 0;
        for (auto& r : replies()) n += r.find(needle) != std::string::npos;
        return n;
    }
    bool wait_reply(const std::string& needle) { return eventually([&] { return count_replies(needle) > 0; }, 20s); }
    void pair_owner() {
        dm(pair());
        BOOST_TEST_REQUIRE(wait_reply("Paired"));
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(bad_signatures_get_401_and_nothing_is_forwarded, SeaTalkFixture) {
    auto body = st::dm_event("ev-x", kEmployee, kSeatalkId, "ABCDEFGH");
    BOOST_TEST(st::send_event(port(), "st", body, "not-the-secret").status == 401);
    BOOST_TEST(st::send_event(port(), "st", body, kSigning, std::string(64, '0')).status == 401);
    auto tampered = st::dm_event("ev-x", kEmployee, kSeatalkId, "ABCDEFGZ");
    BOOST_TEST(st::send_event(port(), "st", tampered, kSigning, coffer::sha256_hex(body + kSigning)).status == 401);
    BOOST_TEST(http_request(port(), "POST", "/seatalk/st", body, {{"Content-Type", "application/json"}}).status == 401);
    BOOST_TEST(st::send_event(port(), "other", body, kSigning).status == 404);
    std::this_thread::sleep_for(500ms);
    BOOST_TEST(counter("received") == 0);
    BOOST_TEST(status().at("status").at("plugin").at("counters").at("events").as_int64() == 0);
    // The same event, signed right, is taken.
    BOOST_TEST(st::send_event(port(), "st", body, kSigning).status == 200);
    BOOST_TEST(eventually([&] { return counter("received") == 1; }));
}

BOOST_FIXTURE_TEST_CASE(the_url_challenge_is_echoed, SeaTalkFixture) {
    auto body = R"({"event_id":"v1","event_type":"event_verification","timestamp":1611220944,"app_id":"app-1","event":{"seatalk_challenge":"c-42"}})";
    auto r = st::send_event(port(), "st", body, kSigning);
    BOOST_TEST(r.status == 200);
    BOOST_TEST(json::parse(r.body) == json::parse(R"({"seatalk_challenge":"c-42"})"), r.body);
    BOOST_TEST(st::send_event(port(), "st", body, "wrong").status == 401);
    std::this_thread::sleep_for(300ms);
    BOOST_TEST(counter("received") == 0);
}

BOOST_FIXTURE_TEST_CASE(pairing_and_replies_in_the_thread, SeaTalkFixture) {
    pair_owner();
    BOOST_TEST(status().at("owner").at("chat").as_string() == kEmployee);
    dm("hello seatalk", "th-9");
    BOOST_TEST_REQUIRE(wait_reply("echo: hello seatalk"));
    for (auto& c : platform.calls("/messaging/v2/single_chat")) {
        BOOST_TEST(c.body.at("employee_code").as_string() == kEmployee);
        BOOST_TEST(!c.body.contains("thread_id"));  // SeaTalk ignores a top-level one
        BOOST_TEST(c.body.at("message").as_object().contains("thread_id"));
        BOOST_TEST(c.authorization == "Bearer t-1");
    }
    bool in_thread = false;
    for (auto& c : platform.calls("/messaging/v2/single_chat"))
        in_thread |= c.body.at("message").at("thread_id").as_string() == "th-9" &&
                     c.body.at("message").at("text").at("content").as_string().find("echo: hello seatalk") != std::string::npos;
    BOOST_TEST(in_thread);
    BOOST_TEST(!platform.calls("/messaging/v2/single_chat_typing").empty());
    BOOST_TEST(platform.tokens_issued() == 1);  // cached
}

BOOST_FIXTURE_TEST_CASE(an_expired_token_is_refreshed_once, SeaTalkFixture) {
    pair_owner();
    platform.expire_token();
    dm("after expiry");
    BOOST_TEST_REQUIRE(wait_reply("echo: after expiry"));
    BOOST_TEST(platform.tokens_issued() == 2);
    std::size_t expired = 0;
    for (auto& c : platform.calls()) expired += c.code == 100;
    BOOST_TEST(expired >= 1u);
    BOOST_TEST(counter("send_failed") == 0);
    BOOST_TEST(status().at("status").at("plugin").at("counters").at("send_failed").as_int64() == 0);
}

BOOST_FIXTURE_TEST_CASE(an_event_delivered_twice_is_answered_once, SeaTalkFixture) {
    pair_owner();
    dm("only once", "th-1", "ev-dup");
    dm("only once", "th-1", "ev-dup");
    BOOST_TEST_REQUIRE(wait_reply("echo: only once"));
    std::this_thread::sleep_for(1500ms);
    BOOST_TEST(count_replies("echo: only once") == 1u);
}

BOOST_AUTO_TEST_CASE(an_empty_signing_secret_is_a_configuration_error) {
    auto r = run({COFFER_CALLBACK_BIN, "--channel", "st"}, {{"COFFER_CALLBACK_SECRET", ""}}, 10s);
    BOOST_TEST(r.exit_code == 2);
    BOOST_TEST(r.err.find("configuration error: the signing secret is empty") != std::string::npos, r.err);
}
