// The bundled telegram adapter in the real daemon against the Telegram Bot API stand-in
// (tests/telegram_standin: real HTTP, Telegram's JSON), coffer-fake-agent as the agent: pairing
// through Telegram-shaped updates (happy path, wrong code, expired code, lockout), strangers
// dropped with no reply, long polling through 409 and 429 retry_after, the plain-text retry after
// "can't parse entities", a daemon killed mid-turn (no update lost or answered twice), a
// 10,000-character answer chunked to ≤ 4,096 UTF-16 units without split code blocks, and the
// bot token in no file the daemon wrote.
#define BOOST_TEST_MODULE integration_channels_telegram
#include <boost/test/unit_test.hpp>

#include "eventually.hpp"
#include "telegram_channel.hpp"
#include "telegram_html.hpp"

#include <coffer/utf8.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;
namespace tg = coffer::telegram_standin;
using namespace std::chrono_literals;

namespace {

struct TelegramFixture : TelegramChannel {
    TelegramFixture()
        : TelegramChannel([](const fs::path& dir) {
              fs::create_directories(dir / "work");
              return json::object{{"agent", "fake"}, {"cwd", (dir / "work").string()}};
          }) {
        add_fake_agent(COFFER_FAKE_AGENT);
    }
    ~TelegramFixture() { check_token_not_written(); }

    // The final (non-progress) texts the bot sent to `chat`, as the user sees them.
    std::vector<std::string> answers(const std::string& chat) {
        std::vector<std::string> out;
        for (auto& m : bot.messages(chat))
            if (m.text.rfind("⏳", 0) != 0) out.push_back(m.visible);  // progress messages begin so
        return out;
    }
    std::size_t count_answers(const std::string& chat, const std::string& needle) {
        std::size_t n = 0;
        for (auto& a : answers(chat)) n += a.find(needle) != std::string::npos;
        return n;
    }
    bool wait_answer(const std::string& chat, const std::string& needle, std::chrono::milliseconds t = 20s) {
        return bot.wait_until([&] { return count_answers(chat, needle) > 0; }, t);
    }
    // Nothing the bot sent or did reaches `chat`.
    void expect_nothing_to(const std::string& chat) {
        for (auto& c : bot.calls())
            if (c.method != "getUpdates") {
                auto* id = c.params.if_contains("chat_id");
                BOOST_TEST(!(id && ((id->is_string() && id->as_string() == chat) || (id->is_int64() && std::to_string(id->as_int64()) == chat))),
                           c.method << " to " << chat);
            }
    }
    void check_token_not_written() {
        for (auto& e : fs::recursive_directory_iterator(d.vault())) {
            if (!e.is_regular_file()) continue;
            auto text = read_text(e.path());
            BOOST_TEST(text.find(kToken) == std::string::npos, "the bot token is in " << e.path());
            BOOST_TEST(text.find("AAHs3cr3t") == std::string::npos, "a part of the bot token is in " << e.path());
        }
        int code = 0;  // (the channel may be gone)
        BOOST_TEST(json::serialize(d.call_json("GET", "/api/v1/channels/tg", "", &code)).find("AAHs3cr3t") == std::string::npos);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(pairing_then_a_round_trip, TelegramFixture) {
    // Long polling as Telegram wants it: a server timeout, the offset confirming what was handed over.
    for (auto& l : bot.request_lines()) BOOST_TEST(l.rfind("POST /bot", 0) == 0);

    auto code = pair();
    say(kOwner, "  " + code + " ");
    BOOST_TEST_REQUIRE(wait_answer(kOwner, "Paired"));
    auto st = status();
    BOOST_TEST(st.at("owner").at("sender").as_string() == kOwner);
    BOOST_TEST(st.at("owner").at("chat").as_string() == kOwner);
    BOOST_TEST(st.at("capabilities").at("max_text").as_int64() == 4096);
    BOOST_TEST(st.at("capabilities").at("text_units").as_string() == "utf16");

    say(kOwner, "hello **there**");
    BOOST_TEST_REQUIRE(wait_answer(kOwner, "echo: hello there"));
    // Sent as HTML (the Markdown bold became <b>), with typing while the turn ran.
    bool html = false;
    for (auto& m : bot.messages(kOwner)) html |= m.parse_mode == "HTML" && m.text.find("<b>there</b>") != std::string::npos;
    BOOST_TEST(html);
    BOOST_TEST(!bot.calls("sendChatAction").empty());
    BOOST_TEST(bot.calls("sendChatAction").front().params.at("action").as_string() == "typing");
    bool long_poll = false;
    for (auto& c : bot.calls("getUpdates")) long_poll |= c.params.at("timeout").as_int64() == 30;
    BOOST_TEST(long_poll);
    // Every update was confirmed: nothing is kept for the bot.
    BOOST_TEST(bot.wait_until([&] { return bot.unconfirmed() == 0; }, 40s));
}

BOOST_FIXTURE_TEST_CASE(wrong_codes_lock_out_even_the_right_one, TelegramFixture) {
    auto code = pair();
    std::string wrong = code == "ZZZZZZZZ" ? "YYYYYYYY" : "ZZZZZZZZ";
    for (int i = 0; i < 5; ++i) say(kStranger, wrong);
    say(kOwner, code);
    std::this_thread::sleep_for(500ms);
    BOOST_TEST(status().at("owner").is_null());
    BOOST_TEST(counter("pairing_failed") == 5);
    BOOST_TEST(counter("pairing_refused") == 1);
    BOOST_TEST(bot.calls("sendMessage").empty());
}

BOOST_FIXTURE_TEST_CASE(an_expired_code_is_refused, TelegramFixture) {
    auto code = pair(1);
    std::this_thread::sleep_for(1300ms);
    say(kOwner, code);
    std::this_thread::sleep_for(500ms);
    BOOST_TEST(status().at("owner").is_null());
    BOOST_TEST(counter("pairing_refused") == 1);
    BOOST_TEST(bot.calls("sendMessage").empty());
}

BOOST_FIXTURE_TEST_CASE(strangers_are_dropped_without_a_reply, TelegramFixture) {
    say(kStranger, "hello before anyone paired");
    say(kStranger, "/help");
    pair_owner();
    say(kStranger, "hello");
    say(kStranger, "/status");
    say(kStranger, "in the owner's chat", kOwner);
    std::this_thread::sleep_for(700ms);
    expect_nothing_to(kStranger);
    BOOST_TEST(counter("dropped") == 5);
    BOOST_TEST(counter("forwarded") == 0);
    BOOST_TEST(answers(kOwner).size() == 1u);  // "Paired" only
}

BOOST_FIXTURE_TEST_CASE(long_polling_survives_409_and_429, TelegramFixture) {
    pair_owner();
    // A second poller takes the slot (Telegram ends ours with 409), twice.
    bot.fail("getUpdates", {409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}, 2);
    bot.inject_text(kStranger, "wake the poll");  // ends the pending long poll so the next call meets the failures
    BOOST_TEST_REQUIRE(eventually([&] { return health().find("not receiving: getUpdates: 409 Conflict") == 0; }, 10s), health());
    BOOST_TEST_REQUIRE(eventually([&] { return health() == "receiving"; }, 15s), health());
    BOOST_TEST(status().at("status").at("plugin").at("counters").at("conflicts").as_int64() == 2);

    // 429: the next call waits at least retry_after.
    bot.fail("getUpdates", {429, "Too Many Requests: retry after 2", 2});
    say(kOwner, "before the limit");
    BOOST_TEST_REQUIRE(eventually([&] { return health().find("429") != std::string::npos; }, 10s), health());
    auto polls = bot.calls("getUpdates");
    std::size_t limited = polls.size();
    for (std::size_t i = 0; i < polls.size(); ++i)
        if (polls[i].status == 429) limited = i;
    BOOST_REQUIRE(limited < polls.size());
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return bot.calls("getUpdates").size() > limited + 1; }, 10s));
    auto gap = bot.calls("getUpdates")[limited + 1].at - polls[limited].at;
    BOOST_TEST(gap >= 2s, "the retry came after " << std::chrono::duration_cast<std::chrono::milliseconds>(gap).count() << " ms");
    // And a message written meanwhile is answered once.
    say(kOwner, "after the limit");
    BOOST_TEST(wait_answer(kOwner, "echo: after the limit"));
    BOOST_TEST(wait_answer(kOwner, "echo: before the limit"));
    BOOST_TEST(count_answers(kOwner, "echo: before the limit") == 1u);
    BOOST_TEST(health() == "receiving");
    BOOST_TEST(read_text(d.vault() / "logs" / "daemon.log").find("409 Conflict") != std::string::npos);  // logged, not silent
}

BOOST_FIXTURE_TEST_CASE(markup_telegram_cannot_parse_is_sent_again_as_plain_text, TelegramFixture) {
    pair_owner();
    bot.refuse_markup(1, "echo: some");
    say(kOwner, "some **bold** words");
    BOOST_TEST_REQUIRE(wait_answer(kOwner, "echo: some"));
    auto sends = bot.calls("sendMessage");
    bool refused = false, plain = false;
    for (auto& c : sends) {
        refused |= c.status == 400 && c.description.find("can't parse entities") != std::string::npos;
        plain |= c.status == 200 && !c.params.contains("parse_mode") && c.params.at("text").as_string().find("echo: some **bold** words") != std::string::npos;
    }
    BOOST_TEST(refused);
    BOOST_TEST(plain);
    BOOST_TEST(counter("send_failed") == 0);
}

BOOST_FIXTURE_TEST_CASE(a_429_on_send_pauses_the_chat_and_the_answer_still_arrives, TelegramFixture) {
    pair_owner();
    bot.fail("sendMessage", {429, "Too Many Requests: retry after 2", 2}, 1);
    say(kOwner, "limited");
    BOOST_TEST_REQUIRE(wait_answer(kOwner, "echo: limited"));
    auto sends = bot.calls("sendMessage");
    std::size_t limited = sends.size();
    for (std::size_t i = 0; i < sends.size(); ++i)
        if (sends[i].status == 429) limited = i;
    BOOST_REQUIRE(limited + 1 < sends.size());
    auto gap = sends[limited + 1].at - sends[limited].at;
    // retry_after 2 s, timed by the adapter from when it read the 429 (the stand-in stamps a call
    // as it finishes it, so the two clocks may differ by a millisecond or two).
    BOOST_TEST(gap >= 1950ms, "sent again after " << std::chrono::duration_cast<std::chrono::milliseconds>(gap).count() << " ms");
    BOOST_TEST(count_answers(kOwner, "echo: limited") == 1u);
    BOOST_TEST(counter("send_failed") == 0);
    BOOST_TEST(status().at("status").at("plugin").at("counters").at("rate_limited").as_int64() == 1);
}

BOOST_FIXTURE_TEST_CASE(progress_is_edited_in_place_and_not_modified_is_success, TelegramFixture) {
    pair_owner();
    // The first edit is answered "message is not modified": a success, not a failure.
    bot.fail("editMessageText", {400, "Bad Request: message is not modified: specified new message content and reply markup are "
                                      "exactly the same as a current content and reply markup of the message"});
    say(kOwner, "slow chunks=6 sleep=700");
    BOOST_TEST_REQUIRE(wait_answer(kOwner, "echo: slow"));
    auto edits = bot.calls("editMessageText");
    BOOST_REQUIRE_GE(edits.size(), 2u);
    BOOST_TEST(edits.front().status == 400);
    for (std::size_t i = 1; i < edits.size(); ++i) BOOST_TEST(edits[i].status == 200);
    auto plugin = status().at("status").at("plugin").at("counters").as_object();
    BOOST_TEST(plugin.at("edited").as_int64() == static_cast<std::int64_t>(edits.size()));
    BOOST_TEST(plugin.at("send_failed").as_int64() == 0);
    // One progress message, edited at most every 1.5 s while the turn runs (the last edit, "✓ done"
    // when the turn ends, is not throttled).
    BOOST_TEST(edits.back().params.at("text").as_string() == "✓ done");
    for (std::size_t i = 1; i + 1 < edits.size(); ++i)
        BOOST_TEST((edits[i].at - edits[i - 1].at >= 1400ms), "edit " << i << " came too soon");
    std::size_t progress = 0;
    for (auto& m : bot.messages(kOwner)) progress += m.text.rfind("⏳", 0) == 0;
    BOOST_TEST(progress == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_daemon_killed_mid_turn_loses_nothing_and_answers_once, TelegramFixture) {
    pair_owner();
    say(kOwner, "before the kill hang=3000");
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return !bot.calls("sendChatAction").empty(); }, 15s));
    d.kill9();
    bot.inject_text(kOwner, "written while the daemon was down");
    BOOST_REQUIRE(d.start());
    BOOST_TEST(wait_answer(kOwner, "echo: before the kill", 40s));
    BOOST_TEST(wait_answer(kOwner, "echo: written while the daemon was down", 40s));
    BOOST_TEST(bot.wait_until([&] { return bot.unconfirmed() == 0; }, 40s));
    std::this_thread::sleep_for(1500ms);
    BOOST_TEST(count_answers(kOwner, "echo: before the kill") == 1u);
    BOOST_TEST(count_answers(kOwner, "echo: written while the daemon was down") == 1u);
    BOOST_TEST(status().at("inbox").at("waiting").as_int64() == 0);
    say(kOwner, "after");
    BOOST_TEST(wait_answer(kOwner, "echo: after"));
}

BOOST_FIXTURE_TEST_CASE(a_long_answer_is_chunked_in_utf16_units_without_split_code_blocks, TelegramFixture) {
    pair_owner();
    auto before = bot.messages(kOwner).size();
    say(kOwner, "long=10000 ✅😀");  // astral characters count twice in UTF-16
    BOOST_TEST_REQUIRE(wait_answer(kOwner, "int line_27_40 = 40;", 30s));
    std::this_thread::sleep_for(1s);
    auto all = bot.messages(kOwner);
    std::vector<tg::Message> chunks(all.begin() + static_cast<std::ptrdiff_t>(before), all.end());
    std::erase_if(chunks, [](const tg::Message& m) { return m.text.rfind("⏳", 0) == 0; });
    BOOST_REQUIRE_GE(chunks.size(), 3u);
    BOOST_TEST(chunks.front().visible.find("echo: long=10000 ✅😀") == 0, chunks.front().visible.substr(0, 200));
    std::size_t total = 0;
    std::string joined;
    for (auto& m : chunks) {
        auto units = coffer::utf8::utf16_length(m.visible);
        total += units;
        BOOST_TEST(units <= 4096u, "a chunk of " << units << " UTF-16 units");
        BOOST_TEST(m.parse_mode == "HTML");
        // Every <pre> opened in a chunk closes in it (the stand-in parsed it like Telegram does).
        BOOST_TEST(tg::parse_html(m.text).error.empty());
        std::size_t open = 0, close = 0;
        for (auto at = m.text.find("<pre>"); at != std::string::npos; at = m.text.find("<pre>", at + 1)) ++open;
        for (auto at = m.text.find("</pre>"); at != std::string::npos; at = m.text.find("</pre>", at + 1)) ++close;
        BOOST_TEST(open == close);
        joined += m.visible + "\n";
    }
    BOOST_TEST(total >= 10000u);
    // Every line of every code block arrives once, inside a code block.
    for (int block = 3; block <= 27; block += 3)
        for (int l = 1; l <= 40; ++l) {
            auto line = "int line_" + std::to_string(block) + "_" + std::to_string(l) + " = " + std::to_string(l) + ";";
            auto at = joined.find(line);
            BOOST_TEST((at != std::string::npos && joined.find(line, at + 1) == std::string::npos), line);
        }
}

BOOST_FIXTURE_TEST_CASE(removing_the_channel_ends_a_pending_long_poll_at_once, TelegramFixture) {
    // A 30 s long poll is pending once one was answered (the first call after start is short).
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return bot.calls("getUpdates").size() >= 1; }));
    std::this_thread::sleep_for(300ms);
    auto t0 = std::chrono::steady_clock::now();
    req("DELETE", "/api/v1/channels/tg", "", 200);
    auto took = std::chrono::steady_clock::now() - t0;
    BOOST_TEST((took < 2s), "removing took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
    auto lines = bot.request_lines().size();
    std::this_thread::sleep_for(1500ms);
    BOOST_TEST(bot.request_lines().size() == lines);  // no poller left behind
}

BOOST_FIXTURE_TEST_CASE(a_bad_config_changes_nothing, TelegramFixture) {
    auto bad = [&](json::object config, const char* pointer) {
        config["agent"] = "fake";
        auto v = req("POST", "/api/v1/channels", json::serialize(json::object{{"name", "bad"}, {"adapter", "telegram"}, {"config", config}}), 400);
        BOOST_TEST(json::serialize(v).find(pointer) != std::string::npos, json::serialize(v));
    };
    bad(json::object{{"token", kToken}}, "/token");  // the token itself, not a reference
    bad(json::object{{"token", "credref:tg-bot"}, {"api_base", "http://api.example.com"}}, "/api_base");
    bad(json::object{{"token", "credref:tg-bot"}, {"api_base", "ftp://127.0.0.1"}}, "/api_base");
    req("GET", "/api/v1/channels/bad", "", 404);
}
