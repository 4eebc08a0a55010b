// The words that name capability types: each type round-trips through its singular and plural
// names, and nothing else parses.
#define BOOST_TEST_MODULE curation
#include <boost/test/unit_test.hpp>

#include "curation/types.hpp"

using namespace coffer::curation;

BOOST_AUTO_TEST_SUITE(types)

BOOST_AUTO_TEST_CASE(every_type_round_trips_through_its_words) {
    for (auto t : {Type::tool, Type::resource, Type::prompt}) {
        BOOST_TEST((parse_type(to_string(t)) == t));
        BOOST_TEST((parse_type(plural(t)) == t));
    }
    BOOST_TEST(to_string(Type::resource) == "resource");
    BOOST_TEST(plural(Type::prompt) == "prompts");
    BOOST_TEST(title(Type::tool) == "Tool");
}

BOOST_AUTO_TEST_CASE(other_words_are_not_types) {
    for (auto w : {"", "Tool", "TOOLS", "toolz", "tool ", "capability"}) BOOST_TEST(!parse_type(w).has_value(), w);
}

BOOST_AUTO_TEST_SUITE_END()
