// The in-memory preferences: a never-seen capability follows its server's auto_enable_new policy,
// observing records only new names (with the policy's decision, never overriding a known one),
// a user's choice wins, and a snapshot a reader holds never changes under it.
#include <boost/test/unit_test.hpp>

#include "curation/prefs.hpp"

using namespace coffer::curation;

BOOST_AUTO_TEST_SUITE(prefs)

BOOST_AUTO_TEST_CASE(an_unknown_server_follows_its_policy) {
    Prefs p;
    BOOST_TEST(!p.server("up"));
    BOOST_TEST(p.enabled("up", Type::tool, "echo", true));
    BOOST_TEST(!p.enabled("up", Type::tool, "echo", false));
}

BOOST_AUTO_TEST_CASE(observe_records_only_new_names_with_the_policys_decision) {
    Prefs p;
    auto first = p.observe("up", Type::tool, {"a", "b"}, false, 1000);
    BOOST_TEST(first == (std::vector<std::string>{"a", "b"}), boost::test_tools::per_element());
    // Known now: the recorded decision holds even when the policy is asked the other way.
    BOOST_TEST(!p.enabled("up", Type::tool, "a", true));
    auto again = p.observe("up", Type::tool, {"a", "b", "c"}, true, 2000);
    BOOST_TEST(again == (std::vector<std::string>{"c"}), boost::test_tools::per_element());
    BOOST_TEST(!p.enabled("up", Type::tool, "b", true));  // not re-decided by the new policy
    BOOST_TEST(p.enabled("up", Type::tool, "c", false));  // decided when first seen
    auto* a = p.server("up")->find(Type::tool, "a");
    BOOST_REQUIRE(a);
    BOOST_TEST(a->origin == kOriginPolicy);
    BOOST_TEST(a->first_seen_ms == 1000);
    BOOST_TEST(p.server("up")->find(Type::tool, "c")->first_seen_ms == 2000);
}

BOOST_AUTO_TEST_CASE(types_and_servers_are_separate) {
    Prefs p;
    p.observe("up", Type::tool, {"x"}, false, 1);
    BOOST_TEST(p.enabled("up", Type::prompt, "x", true));  // a prompt named x is another capability
    BOOST_TEST(p.enabled("other", Type::tool, "x", true));
    BOOST_TEST(!p.server("other"));
}

BOOST_AUTO_TEST_CASE(a_users_choice_overrides_and_observe_keeps_it) {
    Prefs p;
    p.observe("up", Type::tool, {"a"}, true, 1);
    p.put(Row{"up", Type::tool, "a", Entry{false, std::string(kOriginUser), 1, 5}});
    BOOST_TEST(!p.enabled("up", Type::tool, "a", true));
    BOOST_TEST(p.observe("up", Type::tool, {"a"}, true, 9).empty());
    BOOST_TEST(p.server("up")->find(Type::tool, "a")->origin == kOriginUser);
}

BOOST_AUTO_TEST_CASE(a_readers_snapshot_does_not_change) {
    Prefs p;
    p.observe("up", Type::tool, {"a"}, true, 1);
    auto before = p.server("up");
    p.put(Row{"up", Type::tool, "a", Entry{false, std::string(kOriginUser), 1, 5}});
    p.observe("up", Type::tool, {"b"}, true, 6);
    BOOST_TEST(before->enabled(Type::tool, "a", false));
    BOOST_TEST(!before->find(Type::tool, "b"));
    BOOST_TEST(!p.server("up")->enabled(Type::tool, "a", true));
}

BOOST_AUTO_TEST_CASE(load_replaces_everything) {
    Prefs p;
    p.observe("old", Type::tool, {"a"}, false, 1);
    p.load({Row{"new", Type::resource, "file:///r", Entry{false, std::string(kOriginUser), 0, 3}}});
    BOOST_TEST(!p.server("old"));
    BOOST_TEST(!p.enabled("new", Type::resource, "file:///r", true));
}

BOOST_AUTO_TEST_SUITE_END()
