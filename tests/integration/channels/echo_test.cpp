// The channel core through the out-of-tree channel_echo adapter (installed SDK only) in the real
// daemon, with coffer-fake-agent as the agent: a round trip through a real turn, pairing (happy
// path, wrong code, expired code, lockout that also blocks the right code), strangers dropped
// without a reply, commands, queueing during a turn, and chunking of a long answer.
#define BOOST_TEST_MODULE integration_channels_echo
#include <boost/test/unit_test.hpp>

#include "channel_fixture.hpp"
#include "eventually.hpp"
#include "line_client.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kOwner = "1001";
constexpr const char* kOwnerChat = "5000000001";  // beyond 32 bits
constexpr const char* kStranger = "666";

struct EchoFixture : ChannelFixture {
    std::unique_ptr<LineClient> client;
    int next_id = 1;

    EchoFixture() : ChannelFixture({"channel_echo"}, "echo") {
        fs::create_directories(dir.path() / "work");
        add_fake_agent(COFFER_FAKE_AGENT);
        auto created = req("POST", "/api/v1/channels",
                           json::serialize(json::object{{"name", "echo"}, {"adapter", "channel_echo"},
                                                        {"config", json::object{{"agent", "fake"}, {"cwd", (dir.path() / "work").string()}}}}),
                           201);
        BOOST_TEST_REQUIRE(created.at("channel").as_object().contains("owner"), json::serialize(created));
        BOOST_TEST(created.at("channel").at("owner").is_null());
        auto st = status();
        BOOST_TEST_REQUIRE(st["status"].is_object(), json::serialize(st));
        auto port = st.at("status").at("plugin").at("port").as_int64();
        client = std::make_unique<LineClient>(static_cast<std::uint16_t>(port));
    }

    std::string send(const std::string& sender, const std::string& chat, const std::string& text) {
        auto id = std::to_string(next_id++);
        client->msg(id, chat, sender, text);
        return id;
    }
    // Sends and waits for its ACK (the host has it); other lines stay for later reads.
    void send_acked(const std::string& sender, const std::string& chat, const std::string& text) {
        auto id = send(sender, chat, text);
        BOOST_TEST_REQUIRE(client->wait_ack(id), "no ACK for message " << id);
    }
    // Nothing but ACKs for `quiet`.
    void expect_silence(std::chrono::milliseconds quiet = std::chrono::milliseconds(600)) {
        while (auto l = client->next(quiet)) BOOST_TEST(l->verb == "ACK", "unexpected line " << l->verb << " " << l->text);
    }
    void pair_owner() {
        auto code = pair();
        send_acked(kOwner, kOwnerChat, code);
        auto lines = client->until("SEND", "Paired");
        BOOST_TEST(lines.back().chat == kOwnerChat);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(nothing_passes_without_an_owner, EchoFixture) {
    send_acked(kOwner, kOwnerChat, "hello");
    send_acked(kOwner, kOwnerChat, "/help");
    send_acked(kOwner, kOwnerChat, "ABCDEFGH");  // code-shaped, but no code was issued
    expect_silence();
    BOOST_TEST(counter("dropped") == 3);
    BOOST_TEST(counter("forwarded") == 0);
    auto conversations = req("GET", "/api/v1/conversations", "", 200);
    BOOST_TEST(conversations.at("conversations").as_array().empty());
}

BOOST_FIXTURE_TEST_CASE(pairing_then_a_round_trip_through_a_turn, EchoFixture) {
    auto code = pair();
    BOOST_TEST(code.size() == 8u);
    BOOST_TEST(code.find_first_of("0O1I") == std::string::npos);
    BOOST_TEST(status().at("pairing").at("pending").as_bool());
    // The code is stored only as a hash.
    auto db = d.vault() / "coffer.db";
    BOOST_TEST(fs::exists(db));

    send_acked(kOwner, kOwnerChat, "  " + code + " ");
    client->until("SEND", "Paired");
    auto st = status();
    BOOST_TEST(st.at("owner").at("sender").as_string() == kOwner);
    BOOST_TEST(st.at("owner").at("chat").as_string() == kOwnerChat);
    BOOST_TEST(st.at("health").as_string() == "receiving");
    BOOST_TEST(!st.at("pairing").at("pending").as_bool());

    // Single use: the same code from a stranger now changes nothing.
    send_acked(kStranger, "777", code);
    expect_silence();
    BOOST_TEST(status().at("owner").at("sender").as_string() == kOwner);

    send_acked(kOwner, kOwnerChat, "hello there");
    auto lines = client->until("SEND", "echo: hello there");
    bool typing = false;
    for (auto& l : lines) typing |= l.verb == "TYPING" && l.chat == kOwnerChat;
    BOOST_TEST(typing);
    BOOST_TEST(lines.back().chat == kOwnerChat);
    BOOST_TEST(counter("forwarded") == 1);

    // The turn is on the conversation's record, with its channel as the source.
    auto conversations = req("GET", "/api/v1/conversations", "", 200).at("conversations").as_array();
    BOOST_REQUIRE_EQUAL(conversations.size(), 1u);
    auto id = std::string(conversations[0].at("id").as_string());
    auto shown = req("GET", "/api/v1/conversations/" + id, "", 200).at("conversation");
    auto& messages = shown.at("messages").as_array();
    BOOST_REQUIRE_GE(messages.size(), 2u);
    BOOST_TEST(messages[0].at("source").as_string() == "channel:echo");

    // A turn started over REST in the same conversation reaches the chat too.
    req("POST", "/api/v1/conversations/" + id + "/messages", R"({"text":"from rest"})", 202);
    client->until("SEND", "echo: from rest");
}

BOOST_FIXTURE_TEST_CASE(strangers_are_dropped_without_a_reply, EchoFixture) {
    pair_owner();
    send_acked(kStranger, "777", "hello");
    send_acked(kStranger, kOwnerChat, "hello from a stranger in the owner's chat");
    send_acked(kStranger, "777", "/status");
    expect_silence();
    BOOST_TEST(counter("dropped") == 3);
    BOOST_TEST(counter("forwarded") == 0);
}

BOOST_FIXTURE_TEST_CASE(wrong_codes_lock_out_even_the_right_one, EchoFixture) {
    auto code = pair();
    std::string wrong = code == "ZZZZZZZZ" ? "YYYYYYYY" : "ZZZZZZZZ";
    for (int i = 0; i < 5; ++i) send_acked(kStranger, "777", wrong);
    expect_silence();
    BOOST_TEST(counter("pairing_failed") == 5);
    BOOST_TEST(status().at("pairing").as_object().contains("locked_until"));
    send_acked(kOwner, kOwnerChat, code);
    expect_silence();
    BOOST_TEST(status().at("owner").is_null());
    BOOST_TEST(counter("pairing_refused") == 1);
}

BOOST_FIXTURE_TEST_CASE(an_expired_code_is_refused, EchoFixture) {
    auto code = pair(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));
    send_acked(kOwner, kOwnerChat, code);
    expect_silence();
    BOOST_TEST(status().at("owner").is_null());
    BOOST_TEST(counter("pairing_refused") == 1);
}

BOOST_FIXTURE_TEST_CASE(bad_pairing_requests_change_nothing, EchoFixture) {
    auto v = req("POST", "/api/v1/channels/echo/pair", R"({"ttl_s":0})", 400);
    BOOST_TEST(v.at("error").at("code").as_string() == "VALIDATION_FAILED");
    req("POST", "/api/v1/channels/echo/pair", R"({"other":1})", 400);
    req("POST", "/api/v1/channels/nope/pair", "", 404);
    BOOST_TEST(!status().at("pairing").at("pending").as_bool());
    req("POST", "/api/v1/channels", R"({"name":"x","adapter":"no_such_adapter","config":{}})", 400);
}

BOOST_FIXTURE_TEST_CASE(commands_and_queueing, EchoFixture) {
    pair_owner();
    send_acked(kOwner, kOwnerChat, "/help");
    client->until("SEND", "/new");
    send_acked(kOwner, kOwnerChat, "/status");
    client->until("SEND", "No conversation yet");
    // Three messages while the first turn runs: all answered, in order.
    send_acked(kOwner, kOwnerChat, "first hang=800");
    send_acked(kOwner, kOwnerChat, "second");
    send_acked(kOwner, kOwnerChat, "third");
    client->until("SEND", "echo: first");
    client->until("SEND", "echo: second");
    client->until("SEND", "echo: third");
    // /stop interrupts a running turn.
    send_acked(kOwner, kOwnerChat, "slow hang=20000");
    client->until("TYPING");
    send_acked(kOwner, kOwnerChat, "/stop");
    client->until("SEND", "Stopping");
    // "Stopped." when the agent had said nothing yet, else its words and "(stopped)".
    client->until("SEND", "topped");
    // /new: a fresh conversation for the chat.
    send_acked(kOwner, kOwnerChat, "/new");
    client->until("SEND", "New conversation");
    BOOST_TEST(req("GET", "/api/v1/conversations", "", 200).at("conversations").as_array().size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(a_long_answer_is_chunked_without_breaking_code_blocks, EchoFixture) {
    pair_owner();
    send_acked(kOwner, kOwnerChat, "long=3000");
    std::vector<std::string> chunks;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::string all;
    while (std::chrono::steady_clock::now() < deadline) {
        auto l = client->next(std::chrono::seconds(2));
        if (!l) break;
        if (l->verb == "SEND" && l->ref.rfind("f-", 0) == 0) chunks.push_back(l->text);
    }
    BOOST_REQUIRE_GT(chunks.size(), 10u);
    for (auto& c : chunks) {
        std::size_t codepoints = 0;
        for (unsigned char ch : c) codepoints += (ch & 0xC0) != 0x80;
        BOOST_TEST(codepoints <= 200u, "a chunk of " << codepoints << " code points");
        std::size_t fences = 0;
        for (std::size_t at = c.find("```"); at != std::string::npos; at = c.find("```", at + 3)) ++fences;
        BOOST_TEST(fences % 2 == 0, "an open code block in: " << c);
    }
    BOOST_TEST(chunks.front().rfind("echo: long=3000", 0) == 0);
    // Every line of every code block arrives, once.
    std::string joined;
    for (auto& c : chunks) joined += c + "\n";
    for (int l = 1; l <= 40; ++l) {
        auto line = "int line_3_" + std::to_string(l) + " = " + std::to_string(l) + ";";
        auto at = joined.find(line);
        BOOST_TEST((at != std::string::npos && joined.find(line, at + 1) == std::string::npos), line);
    }
}

BOOST_FIXTURE_TEST_CASE(a_daemon_killed_mid_turn_answers_once_after_restart, EchoFixture) {
    pair_owner();
    send_acked(kOwner, kOwnerChat, "before the kill hang=3000");
    client->until("TYPING");
    d.kill9();
    client.reset();
    BOOST_REQUIRE(d.start());
    auto port = status().at("status").at("plugin").at("port").as_int64();
    client = std::make_unique<LineClient>(static_cast<std::uint16_t>(port));
    // The kept message goes to the agent again (its turn died with the daemon) and is answered once.
    client->until("SEND", "echo: before the kill", std::chrono::seconds(40));
    expect_silence(std::chrono::milliseconds(1500));
    auto conversations = req("GET", "/api/v1/conversations", "", 200).at("conversations").as_array();
    BOOST_REQUIRE_EQUAL(conversations.size(), 1u);
    BOOST_TEST(status().at("inbox").at("waiting").as_int64() == 0);
    // The owner is still the owner, and a new message still works.
    send_acked(kOwner, kOwnerChat, "after");
    client->until("SEND", "echo: after");
}
