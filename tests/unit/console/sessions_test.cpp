#define BOOST_TEST_MODULE unit_console
#include <boost/test/unit_test.hpp>

#include "console/sessions.hpp"

#include <thread>

using coffer::console::Sessions;

BOOST_AUTO_TEST_CASE(a_code_opens_one_session_once) {
    Sessions s;
    auto code = s.issue_code();
    BOOST_TEST(code.size() == 64u);
    auto opened = s.redeem(code);
    BOOST_REQUIRE(opened);
    BOOST_TEST(opened->id.size() == 64u);
    BOOST_TEST(opened->csrf.size() == 64u);
    BOOST_TEST(opened->id != code);
    BOOST_TEST(!s.redeem(code).has_value());  // used
    BOOST_TEST(s.csrf_of(opened->id).value() == opened->csrf);
    BOOST_TEST(!s.csrf_of(code).has_value());  // a code is not a session
    BOOST_TEST(!s.redeem("").has_value());
    BOOST_TEST(!s.redeem(std::string(64, '0')).has_value());
}

BOOST_AUTO_TEST_CASE(codes_and_sessions_expire_and_clear_revokes_all) {
    Sessions::Options o;
    o.code_ttl = std::chrono::seconds(0);
    Sessions s(o);
    BOOST_TEST(!s.redeem(s.issue_code()).has_value());  // expired at once

    Sessions t;
    auto a = t.redeem(t.issue_code());
    auto pending = t.issue_code();
    BOOST_REQUIRE(a);
    t.clear();
    BOOST_TEST(!t.csrf_of(a->id).has_value());
    BOOST_TEST(!t.redeem(pending).has_value());
}

BOOST_AUTO_TEST_CASE(the_least_recently_used_session_gives_way_and_end_logs_out) {
    Sessions::Options o;
    o.max_sessions = 2;
    Sessions s(o);
    auto a = s.redeem(s.issue_code());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    auto b = s.redeem(s.issue_code());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    BOOST_REQUIRE(s.csrf_of(a->id));  // a is now the most recently used
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    auto c = s.redeem(s.issue_code());
    BOOST_TEST(s.size() == 2u);
    BOOST_TEST(s.csrf_of(a->id).has_value());
    BOOST_TEST(!s.csrf_of(b->id).has_value());
    s.end(c->id);
    BOOST_TEST(!s.csrf_of(c->id).has_value());
}
