// The shim's count of unanswered request bytes (flow control towards the daemon).
#include <boost/test/unit_test.hpp>

#include "shim/unanswered.hpp"

using coffer::shim::Unanswered;

BOOST_AUTO_TEST_CASE(unanswered_requests_count_until_answered_under_any_spelling_of_a_string_id) {
    Unanswered u(100, 50);
    u.read("1", 60);
    u.read(R"("a")", 30);
    BOOST_TEST(u.bytes() == 90u);
    BOOST_TEST(!u.over_high());
    u.read("2", 20);
    BOOST_TEST(u.over_high());
    u.done("1");
    BOOST_TEST(u.bytes() == 50u);
    BOOST_TEST(!u.under_low());
    u.done(R"("\u0061")");  // the same id as "a"
    BOOST_TEST(u.bytes() == 20u);
    BOOST_TEST(u.under_low());
    u.done("7");   // never read: nothing changes
    u.done("");
    u.read("", 1000);  // a notification has no id: it does not count
    BOOST_TEST(u.bytes() == 20u);
    u.done("2");
    BOOST_TEST(u.bytes() == 0u);
}
