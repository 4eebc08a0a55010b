// The bound on upstreams starting at once: starts beyond the limit wait in order, those of servers
// that worked before first; a start that ends (or is given up while waiting) frees its slot for
// the next, which runs deferred; unknown tickets are ignored.
#include <boost/test/unit_test.hpp>

#include "start_queue.hpp"

#include <string>
#include <vector>

using coffer::mcp_server::StartQueue;

BOOST_AUTO_TEST_CASE(starts_beyond_the_limit_wait_and_preferred_ones_go_first) {
    std::vector<std::function<void()>> deferred;
    StartQueue q([&](std::function<void()> fn) { deferred.push_back(std::move(fn)); }, 2);
    std::string ran;
    auto go = [&](char c) { return [&ran, c] { ran += c; }; };
    auto a = q.enter(false, go('a'));
    auto b = q.enter(false, go('b'));
    BOOST_TEST(q.holds(a));
    BOOST_TEST(q.holds(b));
    auto c = q.enter(false, go('c'));
    auto d = q.enter(true, go('d'));  // a server that worked before
    auto e = q.enter(false, go('e'));
    BOOST_TEST(!q.holds(c));
    BOOST_TEST(q.waiting() == 3u);
    BOOST_TEST(ran.empty());  // the caller goes ahead itself for a and b

    q.leave(e);  // given up while waiting: no slot freed, no one runs
    BOOST_TEST(q.waiting() == 2u);
    BOOST_TEST(deferred.empty());

    q.leave(a);
    BOOST_REQUIRE(deferred.size() == 1u);
    deferred.back()();
    BOOST_TEST(ran == "d");
    BOOST_TEST(q.holds(d));
    q.leave(12345);  // unknown
    BOOST_TEST(q.starting() == 2u);
    q.leave(b);
    BOOST_REQUIRE(deferred.size() == 2u);
    deferred.back()();
    BOOST_TEST(ran == "dc");
    BOOST_TEST(q.waiting() == 0u);
    q.leave(c);
    q.leave(d);
    BOOST_TEST(q.starting() == 0u);
    BOOST_TEST(q.holds(q.enter(false, go('f'))));  // free again: at once
}

BOOST_AUTO_TEST_CASE(the_default_limit_allows_a_few_starts_per_cpu) {
    BOOST_TEST(StartQueue::default_limit() >= 8u);
}
