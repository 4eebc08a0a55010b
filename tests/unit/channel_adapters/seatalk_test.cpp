// seatalk: events → envelopes; coffer-callback's signature check.
#include <boost/test/unit_test.hpp>

#include "events.hpp"
#include "signature.hpp"

#include <coffer/sha256.hpp>

namespace json = boost::json;

BOOST_AUTO_TEST_CASE(a_direct_message_event_becomes_an_envelope) {
    auto e = coffer::seatalk::to_envelope(json::parse(R"({"event_id":"1234567","event_type":"message_from_bot_subscriber",
        "timestamp":1611220944,"app_id":"abc","event":{"seatalk_id":"1239487273","employee_code":"e_12345678",
        "email":"sample@seatalk.biz","message":{"message_id":"m1","thread_id":"t1","tag":"text",
        "text":{"content":"How can I request for leave?"}}}})").as_object());
    BOOST_REQUIRE(e);
    BOOST_TEST(e->at("id").as_string() == "1234567");
    BOOST_TEST(e->at("chat").as_string() == "e_12345678");
    BOOST_TEST(e->at("sender").as_string() == "1239487273");
    BOOST_TEST(e->at("text").as_string() == "How can I request for leave?");
    BOOST_TEST(e->at("thread").as_string() == "t1");
}

BOOST_AUTO_TEST_CASE(group_text_is_plain_text_and_other_events_carry_nothing) {
    auto g = coffer::seatalk::to_envelope(json::parse(R"({"event_id":"9","event_type":"new_mentioned_message_received_from_group_chat",
        "event":{"group_id":"g1","seatalk_id":"5","message":{"tag":"text","text":{"plain_text":"@bot hi","content":"x"}}}})").as_object());
    BOOST_REQUIRE(g);
    BOOST_TEST(g->at("chat").as_string() == "g1");
    BOOST_TEST(g->at("text").as_string() == "@bot hi");
    BOOST_TEST(g->at("chat_type").as_string() == "group");
    auto image = coffer::seatalk::to_envelope(json::parse(R"({"event_id":"9","event_type":"message_from_bot_subscriber",
        "event":{"employee_code":"e","seatalk_id":"5","message":{"tag":"image","image":{"content":"https://x"}}}})").as_object());
    BOOST_TEST(!image);
    BOOST_TEST(!coffer::seatalk::to_envelope(json::parse(R"({"event_type":"bot_added_to_group_chat","event":{}})").as_object()));
}

BOOST_AUTO_TEST_CASE(the_signature_is_sha256_of_body_then_secret) {
    std::string body = R"({"event_type":"event_verification","event":{"seatalk_challenge":"c"}})";
    auto sig = coffer::sha256_hex(body + "s3cret");
    BOOST_TEST(coffer::callback::signature_of(body, "s3cret") == sig);
    BOOST_TEST(coffer::callback::signature_ok(body, "s3cret", sig));
    std::string upper = sig;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    BOOST_TEST(coffer::callback::signature_ok(body, "s3cret", upper));
    BOOST_TEST(!coffer::callback::signature_ok(body + " ", "s3cret", sig));
    BOOST_TEST(!coffer::callback::signature_ok(body, "other", sig));
    BOOST_TEST(!coffer::callback::signature_ok(body, "s3cret", sig.substr(1)));
    BOOST_TEST(!coffer::callback::signature_ok(body, "s3cret", ""));
}
