// telegram: updates → envelopes, Bot API answers, send requests.
#include <boost/test/unit_test.hpp>

#include "bot_api.hpp"
#include "outbox.hpp"
#include "updates.hpp"

#include <coffer/sdk.hpp>

namespace json = boost::json;
using namespace coffer::telegram;

BOOST_AUTO_TEST_CASE(a_private_text_message_becomes_an_envelope_with_64_bit_ids_as_text) {
    auto u = read_update(json::parse(R"({"update_id":1001,"message":{"message_id":7,
        "from":{"id":5000000001,"is_bot":false,"first_name":"A","username":"a"},
        "chat":{"id":5000000001,"type":"private"},"date":1718000000,"text":"hi"}})"));
    BOOST_REQUIRE(u && u->envelope);
    BOOST_TEST(u->update_id == 1001);
    auto& e = *u->envelope;
    BOOST_TEST(e.at("id").as_string() == "1001");
    BOOST_TEST(e.at("chat").as_string() == "5000000001");
    BOOST_TEST(e.at("sender").as_string() == "5000000001");
    BOOST_TEST(e.at("text").as_string() == "hi");
    BOOST_TEST(e.at("chat_type").as_string() == "direct");
    BOOST_TEST(e.at("sender_name").as_string() == "a");
}

BOOST_AUTO_TEST_CASE(other_updates_carry_nothing_but_their_offset) {
    auto photo = read_update(json::parse(R"({"update_id":5,"message":{"message_id":1,"from":{"id":1,"is_bot":false},"chat":{"id":1,"type":"private"},"photo":[]}})"));
    BOOST_REQUIRE(photo);
    BOOST_TEST(!photo->envelope);
    auto bot = read_update(json::parse(R"({"update_id":6,"message":{"message_id":1,"from":{"id":2,"is_bot":true},"chat":{"id":1,"type":"private"},"text":"x"}})"));
    BOOST_TEST(!bot->envelope);
    auto group = read_update(json::parse(R"({"update_id":7,"message":{"message_id":1,"from":{"id":2},"chat":{"id":-1001234567890,"type":"supergroup"},"text":"x","message_thread_id":12}})"));
    BOOST_TEST(group->envelope->at("chat").as_string() == "-1001234567890");
    BOOST_TEST(group->envelope->at("chat_type").as_string() == "group");
    BOOST_TEST(group->envelope->at("thread").as_string() == "12");
    BOOST_TEST(!read_update(json::parse(R"({"message":{}})")));
}

BOOST_AUTO_TEST_CASE(bot_api_answers_are_read_with_retry_after) {
    auto ok = parse_answer(200, R"({"ok":true,"result":[]})");
    BOOST_TEST(ok.ok);
    BOOST_TEST(ok.result.is_array());
    auto limited = parse_answer(429, R"({"ok":false,"error_code":429,"description":"Too Many Requests: retry after 35","parameters":{"retry_after":35}})");
    BOOST_TEST(!limited.ok);
    BOOST_TEST(limited.error_code == 429);
    BOOST_TEST(limited.retry_after == 35);
    BOOST_TEST(limited.why() == "429 Too Many Requests: retry after 35");
    auto parse = parse_answer(400, R"({"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: Unsupported start tag"})");
    BOOST_TEST(parse.description_has("CAN'T PARSE ENTITIES"));
    auto html = parse_answer(502, "<html>Bad Gateway</html>");
    BOOST_TEST(!html.ok);
    BOOST_TEST(html.error_code == 502);
}

BOOST_AUTO_TEST_CASE(the_token_never_leaves_the_api_object) {
    BotApi api({}, "123456:SECRET");
    BOOST_TEST(api.redact("GET /bot123456:SECRET/getMe failed") == "GET /bot<token>/getMe failed");
}

BOOST_AUTO_TEST_CASE(send_requests_are_checked) {
    BOOST_CHECK_THROW(job_from_request(OutJob::Kind::send, json::object{{"ref", "r"}, {"text", "t"}}), coffer::sdk::Error);
    BOOST_CHECK_THROW(job_from_request(OutJob::Kind::send, json::object{{"chat", "1"}, {"text", "t"}}), coffer::sdk::Error);
    BOOST_CHECK_NO_THROW(job_from_request(OutJob::Kind::typing, json::object{{"chat", "1"}}));
    auto j = job_from_request(OutJob::Kind::send, json::object{{"chat", "1"}, {"ref", "f-1"}, {"text", "<b>x</b>"}, {"plain", "**x**"}, {"format", "html"}});
    BOOST_TEST(j.plain == "**x**");
}
