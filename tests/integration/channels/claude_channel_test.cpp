// IM channels into the user's own agent session (issue 14 item 6, ADR 0041): a Telegram channel
// with deliver "session" in the real daemon against the Bot API stand-in, and coffer-mcp-shim
// --channel as Claude Code runs it (stdio JSON-RPC, the daemon's local socket). The session is
// offered the experimental claude/channel capability and coffer__channel_reply; the owner's
// messages — those kept while no session listened first, in order — arrive as
// notifications/claude/channel; a stranger's never do; replies reach only the owner's chat,
// rendered and chunked for Telegram; a session that did not ask sees none of it.
#define BOOST_TEST_MODULE integration_channels_claude_channel
#include <boost/test/unit_test.hpp>

#include "eventually.hpp"
#include "telegram_channel.hpp"
#include "stdio_child.hpp"

#include <coffer/utf8.hpp>

#include <boost/json.hpp>

#include <filesystem>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct SessionChannelFixture : TelegramChannel {
    SessionChannelFixture() : TelegramChannel([](const fs::path&) { return json::object{{"deliver", "session"}}; }) {}

    // coffer-mcp-shim for this vault (never spawning a daemon), initialized.
    std::unique_ptr<StdioChild> shim(const std::vector<std::string>& extra, json::object* init_result = nullptr) {
        std::vector<std::string> argv{(bin_dir() / "coffer-mcp-shim").string(), "--agent", "claude"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        auto c = std::make_unique<StdioChild>(argv, std::map<std::string, std::string>{{"COFFER_HOME", d.vault().string()}, {"COFFER_NO_SPAWN", "1"}},
                                              dir.path() / "shim.stderr");
        c->send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2"}}})");
        auto r = c->response(1, 10s);
        BOOST_TEST_REQUIRE(r.has_value(), "no initialize answer");
        BOOST_TEST_REQUIRE(r->as_object().contains("result"), json::serialize(*r));
        if (init_result) *init_result = r->at("result").as_object();
        c->send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        return c;
    }
    // The params of the next notification `method` on `c` (other lines skipped), or null.
    static json::value next_notification(StdioChild& c, const std::string& method, std::chrono::milliseconds timeout = 10s) {
        auto deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline) {
            auto l = c.line(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
            if (!l) break;
            auto v = parse(*l);
            if (v.is_object() && v.as_object().contains("method") && v.at("method").as_string() == method) return v.at("params");
        }
        return nullptr;
    }
    static json::value next_channel_message(StdioChild& c, std::chrono::milliseconds timeout = 10s) {
        return next_notification(c, "notifications/claude/channel", timeout);
    }
    static json::object call(StdioChild& c, int id, const std::string& method, json::object params) {
        c.send(json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}));
        auto r = c.response(id, 15s);
        BOOST_TEST_REQUIRE(r.has_value(), "no answer to " << method);
        BOOST_TEST_REQUIRE(r->as_object().contains("result"), json::serialize(*r));
        return r->at("result").as_object();
    }
    static bool lists_tool(StdioChild& c, int id, const std::string& name) {
        auto r = call(c, id, "tools/list", {});
        for (auto& t : r.at("tools").as_array())
            if (t.at("name").as_string() == name) return true;
        return false;
    }
    static std::string text_of(const json::object& result) {
        return std::string(result.at("content").as_array().at(0).at("text").as_string());
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(owner_messages_reach_the_listening_session_and_replies_go_back, SessionChannelFixture) {
    pair_owner();

    // Nobody listens yet: the messages are kept, and the owner is told so once.
    say(kOwner, "first, while nobody listens");
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return count_to(kOwner, "No agent session listens") == 1; }, 10s));
    say(kOwner, "second");
    BOOST_TEST(status().at("counters").at("forwarded").as_int64() == 0);

    json::object init;
    auto s = shim({"--channel", "tg"}, &init);
    BOOST_TEST(init.at("capabilities").at("experimental").as_object().contains("claude/channel"));
    BOOST_TEST(std::string(init.at("instructions").as_string()).find("coffer__channel_reply") != std::string::npos);

    // What waited arrives first, in order, with the chat to answer.
    auto m1 = next_channel_message(*s);
    BOOST_TEST_REQUIRE(m1.is_object(), "the kept message never reached the session");
    BOOST_TEST(m1.at("content").as_string() == "first, while nobody listens");
    BOOST_TEST(m1.at("meta").at("chat_id").as_string() == kOwner);
    BOOST_TEST(m1.at("meta").at("channel").as_string() == "tg");
    for (auto& kv : m1.at("meta").as_object()) BOOST_TEST(kv.value().is_string(), kv.key() << " is not a string");
    auto m2 = next_channel_message(*s);
    BOOST_TEST_REQUIRE(m2.is_object());
    BOOST_TEST(m2.at("content").as_string() == "second");

    // Live: a stranger's message never arrives, the owner's next one does.
    say(kStranger, "let me in");
    say(kOwner, "live **one**");
    auto m3 = next_channel_message(*s);
    BOOST_TEST_REQUIRE(m3.is_object());
    BOOST_TEST(m3.at("content").as_string() == "live **one**");
    BOOST_TEST(eventually([&] { return status().at("counters").at("forwarded").as_int64() == 3; }, 5s));
    BOOST_TEST(count_to(kOwner, "No agent session listens") == 1);

    // The reply tool: listed, answers to the owner's chat rendered for Telegram.
    BOOST_TEST(lists_tool(*s, 10, "coffer__channel_reply"));
    auto sent = call(*s, 11, "tools/call",
                     {{"name", "coffer__channel_reply"}, {"arguments", {{"chat_id", kOwner}, {"text", "**hi** back"}}}});
    BOOST_TEST(!sent.at("isError").as_bool(), json::serialize(sent));
    BOOST_TEST(text_of(sent) == "sent");
    // (sent means handed to the adapter, which posts to Telegram on its own loop)
    BOOST_TEST(bot.wait_until([&] {
        for (auto& m : bot.messages(kOwner))
            if (m.parse_mode == "HTML" && m.text.find("<b>hi</b> back") != std::string::npos) return true;
        return false;
    }, 10s));

    // A long reply is split for Telegram (≤ 4,096 UTF-16 units each), nothing lost.
    std::string long_text;
    for (int i = 0; i < 500; ++i) long_text += "line " + std::to_string(i) + " of a long answer\n";
    auto before = bot.messages(kOwner).size();
    auto long_sent = call(*s, 12, "tools/call", {{"name", "coffer__channel_reply"}, {"arguments", {{"chat_id", kOwner}, {"text", long_text}}}});
    BOOST_TEST(!long_sent.at("isError").as_bool());
    BOOST_TEST(bot.wait_until([&] {
        auto all = bot.messages(kOwner);
        return !all.empty() && all.back().visible.find("line 499 of") != std::string::npos;
    }, 10s));
    auto after = bot.messages(kOwner);
    BOOST_TEST(after.size() >= before + 3);
    std::string joined;
    for (std::size_t i = before; i < after.size(); ++i) {
        BOOST_TEST(coffer::utf8::utf16_length(after[i].text) <= 4096u);
        joined += after[i].visible;
    }
    BOOST_TEST(joined.find("line 0 of") != std::string::npos);
    BOOST_TEST(joined.find("line 499 of") != std::string::npos);

    // The gate holds outbound too: no reply to a stranger's chat, and nothing reaches it.
    auto refused = call(*s, 13, "tools/call",
                        {{"name", "coffer__channel_reply"}, {"arguments", {{"chat_id", kStranger}, {"text", "hello stranger"}}}});
    BOOST_TEST(refused.at("isError").as_bool());
    BOOST_TEST(text_of(refused).find("not the owner's chat") != std::string::npos, text_of(refused));
    BOOST_TEST(bot.messages(kStranger).empty());
    auto bad = call(*s, 14, "tools/call", {{"name", "coffer__channel_reply"}, {"arguments", {{"text", "no chat"}}}});
    BOOST_TEST(bad.at("isError").as_bool());

    // Permission relay: Claude Code asks, the owner answers from the phone (a stranger cannot).
    BOOST_TEST(init.at("capabilities").at("experimental").as_object().contains("claude/channel/permission"));
    s->send(R"({"jsonrpc":"2.0","method":"notifications/claude/channel/permission_request","params":{"request_id":"abcde","tool_name":"Bash","description":"list the files","input_preview":"{\"command\":\"ls\"}"}})");
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return count_to(kOwner, "yes abcde") == 1; }, 10s));
    BOOST_TEST(count_to(kOwner, "Bash") >= 1u);
    say(kStranger, "yes abcde");
    say(kOwner, "  YES abcde ");
    auto verdict = next_notification(*s, "notifications/claude/channel/permission");
    BOOST_TEST_REQUIRE(verdict.is_object(), "the owner's answer never reached the session");
    BOOST_TEST(verdict.at("request_id").as_string() == "abcde");
    BOOST_TEST(verdict.at("behavior").as_string() == "allow");
    BOOST_TEST(bot.wait_until([&] { return count_to(kOwner, "Allowed") == 1; }, 10s));
    s->send(R"({"jsonrpc":"2.0","method":"notifications/claude/channel/permission_request","params":{"request_id":"fghij","tool_name":"Write","description":"write a file","input_preview":""}})");
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return count_to(kOwner, "no fghij") == 1; }, 10s));
    say(kOwner, "n fghij");
    auto denied = next_notification(*s, "notifications/claude/channel/permission");
    BOOST_TEST_REQUIRE(denied.is_object());
    BOOST_TEST(denied.at("behavior").as_string() == "deny");
    // Answered once: the same words again are an ordinary message.
    say(kOwner, "n fghij");
    auto plain_again = next_channel_message(*s);
    BOOST_TEST_REQUIRE(plain_again.is_object());
    BOOST_TEST(plain_again.at("content").as_string() == "n fghij");

    // Commands in session mode say where the conversation is.
    say(kOwner, "/status");
    BOOST_TEST(bot.wait_until([&] { return count_to(kOwner, "1 agent session listens") == 1; }, 10s));

    // A session that did not ask for channels sees none of it.
    json::object plain_init;
    auto plain = shim({}, &plain_init);
    BOOST_TEST(!plain_init.at("capabilities").as_object().contains("experimental"));
    BOOST_TEST(!lists_tool(*plain, 20, "coffer__channel_reply"));
    plain->send(R"({"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"coffer__channel_reply","arguments":{"chat_id":"5000000001","text":"x"}}})");
    auto nope = plain->response(21, 10s);
    BOOST_TEST_REQUIRE(nope.has_value());
    BOOST_TEST(nope->as_object().contains("error"), json::serialize(*nope));
}

BOOST_FIXTURE_TEST_CASE(a_session_that_ends_leaves_later_messages_for_the_next, SessionChannelFixture) {
    pair_owner();
    {
        auto s = shim({"--channel", "tg"});
        say(kOwner, "to the first session");
        auto m = next_channel_message(*s);
        BOOST_TEST_REQUIRE(m.is_object());
        BOOST_TEST(m.at("content").as_string() == "to the first session");
    }  // the shim exits: its session closes
    BOOST_TEST_REQUIRE(eventually([&] { return d.call_json("POST", "/api/v1/mcp/refresh").at("sessions").as_int64() == 0; }, 10s));
    say(kOwner, "while the agent is closed");
    auto s2 = shim({"--channel", "tg"});
    auto m = next_channel_message(*s2);
    BOOST_TEST_REQUIRE(m.is_object(), "the message kept between sessions never arrived");
    BOOST_TEST(m.at("content").as_string() == "while the agent is closed");
    // The newest listener gets the messages; the older one nothing more.
    auto s3 = shim({"--channel", "tg"});
    say(kOwner, "to the newest");
    auto m3 = next_channel_message(*s3);
    BOOST_TEST_REQUIRE(m3.is_object());
    BOOST_TEST(m3.at("content").as_string() == "to the newest");
    BOOST_TEST(next_channel_message(*s2, 500ms).is_null());
}
