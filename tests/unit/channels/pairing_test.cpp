// Pairing codes: length and alphabet, code-shaped messages, hashes bound to the channel.
#include <boost/test/unit_test.hpp>

#include "channels/commands.hpp"
#include "channels/pairing.hpp"

#include <set>

using namespace coffer::channels;

BOOST_AUTO_TEST_CASE(codes_avoid_look_alikes) {
    std::set<std::string> seen;
    for (int i = 0; i < 200; ++i) {
        auto c = new_code();
        BOOST_TEST(c.size() == 8u);
        BOOST_TEST(c.find_first_of("0O1I") == std::string::npos, c);
        BOOST_TEST(c.find_first_not_of(std::string(kCodeAlphabet)) == std::string::npos, c);
        seen.insert(c);
    }
    BOOST_TEST(seen.size() == 200u);
}

BOOST_AUTO_TEST_CASE(code_candidates) {
    BOOST_TEST(code_candidate("  abcd2345 \n") == "ABCD2345");
    BOOST_TEST(code_candidate("hello").empty());
    BOOST_TEST(code_candidate("abcd 234").empty());
    BOOST_TEST(code_candidate("abcd23456").empty());
}

BOOST_AUTO_TEST_CASE(hashes_are_per_channel) {
    BOOST_TEST(code_hash("a", "ABCD2345") != code_hash("b", "ABCD2345"));
    BOOST_TEST(code_hash("a", "ABCD2345") == code_hash("a", "ABCD2345"));
    BOOST_TEST(code_hash("a", "ABCD2345").size() == 64u);
}

BOOST_AUTO_TEST_CASE(commands) {
    BOOST_TEST((parse_command("/new") == Command::new_conversation));
    BOOST_TEST((parse_command(" /stop@my_bot ") == Command::stop));
    BOOST_TEST((parse_command("/status now") == Command::status));
    BOOST_TEST((parse_command("/start") == Command::help));
    BOOST_TEST((parse_command("/unknown") == Command::none));
    BOOST_TEST((parse_command("hello /new") == Command::none));
}

BOOST_AUTO_TEST_CASE(permission_replies) {
    auto yes = parse_permission_reply("  YES abcde ");
    BOOST_TEST_REQUIRE(yes.has_value());
    BOOST_TEST(yes->allow);
    BOOST_TEST(yes->request_id == "abcde");
    auto no = parse_permission_reply("n\tFGHIJ");
    BOOST_TEST_REQUIRE(no.has_value());
    BOOST_TEST(!no->allow);
    BOOST_TEST(no->request_id == "fghij");
    BOOST_TEST(!parse_permission_reply("yes abcdl"));     // no "l" in an id
    BOOST_TEST(!parse_permission_reply("yes abcd"));      // five letters
    BOOST_TEST(!parse_permission_reply("yes abcde x"));   // nothing after it
    BOOST_TEST(!parse_permission_reply("yess abcde"));
    BOOST_TEST(!parse_permission_reply("yesabcde"));
    BOOST_TEST(!parse_permission_reply("yes ab1de"));
    BOOST_TEST(!parse_permission_reply(""));
}
