// The bundled seatalk adapter in the real daemon: coffer-callback started by it on loopback, the
// SeaTalk Open Platform stand-in (tests/seatalk_standin) for tokens and replies, and an event
// sender that signs like SeaTalk; coffer-fake-agent as the agent. A bad or missing signature →
// 401 and nothing forwarded; the URL challenge echoed; pairing and replies through single_chat
// with thread_id inside "message"; the token cached, and refreshed once on code 100; an event
// delivered twice answered once; code 101 waited out; an empty signing secret is a configuration
// error; coffer-callback's spool keeps an acknowledged event until the host has it and hands it
// over again after a crash.
#define BOOST_TEST_MODULE integration_channels_seatalk
#include <boost/test/unit_test.hpp>

#include "channel_fixture.hpp"
#include "eventually.hpp"
#include "standin.hpp"
#include "stdio_child.hpp"

#include <coffer/sha256.hpp>

#include <signal.h>

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
    // Every event the host keeps leaves coffer-callback's spool (none are waiting).
    auto spool = d.vault() / "data" / "seatalk" / "callback-spool";
    BOOST_TEST_REQUIRE(std::filesystem::is_directory(spool));
    BOOST_TEST(eventually([&] {
        std::size_t files = 0;
        for (auto& e : std::filesystem::recursive_directory_iterator(spool)) files += e.is_regular_file();
        return files == 0;
    }, 5s));
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

BOOST_FIXTURE_TEST_CASE(rate_limited_calls_wait_and_retry, SeaTalkFixture) {
    pair_owner();
    platform.rate_limit(2);  // the next two calls (typing or the reply) are refused with code 101
    auto t0 = std::chrono::steady_clock::now();
    dm("through the limit");
    BOOST_TEST_REQUIRE(wait_reply("echo: through the limit"));
    std::size_t limited = 0;
    for (auto& c : platform.calls()) limited += c.code == 101;
    BOOST_TEST(limited == 2u);
    // Backed off (each wait ≥ 0.8 s with the jitter; calls go one at a time) rather than retried at once.
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST(took >= 1600);
    BOOST_TEST(count_replies("echo: through the limit") == 1u);
    BOOST_TEST(status().at("status").at("plugin").at("counters").at("rate_limited").as_int64() == 2);
}

BOOST_FIXTURE_TEST_CASE(an_event_delivered_twice_is_answered_once, SeaTalkFixture) {
    pair_owner();
    dm("only once", "th-1", "ev-dup");
    dm("only once", "th-1", "ev-dup");
    BOOST_TEST_REQUIRE(wait_reply("echo: only once"));
    std::this_thread::sleep_for(1500ms);
    BOOST_TEST(count_replies("echo: only once") == 1u);
}

// coffer-callback alone, its stdin and stdout held by the test as the adapter would: an event
// answered 200 is in the spool until "done"; killed before that, the next run hands it over
// again before it listens.
BOOST_AUTO_TEST_CASE(the_spool_keeps_an_acknowledged_event_until_the_host_has_it) {
    TempDir dir;
    auto spool = dir.path() / "spool";
    std::vector<std::string> argv{COFFER_CALLBACK_BIN, "--channel", "st", "--port", "0", "--spool", spool.string()};
    std::map<std::string, std::string> env{{"COFFER_CALLBACK_SECRET", kSigning}};
    auto listening_port = [](StdioChild& c, std::vector<json::value>* before = nullptr) {
        for (int i = 0; i < 10; ++i) {
            auto l = c.line(10s);
            BOOST_TEST_REQUIRE(l.has_value(), "coffer-callback said nothing");
            auto v = parse(*l);
            if (v.at("type").as_string() == "listening") return static_cast<std::uint16_t>(v.at("port").as_int64());
            if (before) before->push_back(v);
        }
        BOOST_FAIL("no listening line");
        return std::uint16_t{0};
    };
    std::string spooled;
    {
        StdioChild c(argv, env, dir.path() / "callback.stderr");
        auto port = listening_port(c);
        auto r = st::send_event(port, "st", st::dm_event("ev-spool", kEmployee, kSeatalkId, "kept for later"), kSigning);
        BOOST_TEST_REQUIRE(r.status == 200);
        auto line = c.line(10s);
        BOOST_TEST_REQUIRE(line.has_value());
        auto ev = parse(*line);
        spooled = std::string(ev.at("spool").as_string());
        BOOST_TEST(ev.at("body").at("event_id").as_string() == "ev-spool");
        BOOST_TEST(std::filesystem::exists(spool / spooled));
        ::kill(c.pid(), SIGKILL);  // before the adapter said "done": the daemon never had it
        c.wait(5s);
    }
    StdioChild again(argv, env, dir.path() / "callback.stderr");
    std::vector<json::value> replayed;
    listening_port(again, &replayed);
    BOOST_TEST_REQUIRE(replayed.size() == 1u);
    BOOST_TEST(replayed[0].at("spool").as_string() == spooled);
    BOOST_TEST(replayed[0].at("body").at("event").at("message").at("text").at("content").as_string() == "kept for later");
    again.send(json::serialize(json::object{{"type", "done"}, {"spool", "../../etc/passwd"}}));  // not one of ours: ignored
    again.send(json::serialize(json::object{{"type", "done"}, {"spool", spooled}}));
    BOOST_TEST(eventually([&] { return !std::filesystem::exists(spool / spooled); }, 5s));
}

BOOST_AUTO_TEST_CASE(an_empty_signing_secret_is_a_configuration_error) {
    auto r = run({COFFER_CALLBACK_BIN, "--channel", "st"}, {{"COFFER_CALLBACK_SECRET", ""}}, 10s);
    BOOST_TEST(r.exit_code == 2);
    BOOST_TEST(r.err.find("configuration error: the signing secret is empty") != std::string::npos, r.err);
}
