#define BOOST_TEST_MODULE resource
#include <boost/test/unit_test.hpp>

#include "resource/model.hpp"
#include "resource/scope.hpp"

#include <boost/json.hpp>

using namespace coffer::resource;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(scope)

BOOST_AUTO_TEST_CASE(checks_shape_with_pointers) {
    BOOST_TEST(!check_scope(json::parse(R"([{"machine":"*","agents":["*"]}])")).has_value());
    auto p = check_scope(json::parse(R"({})"));
    BOOST_REQUIRE(p);
    BOOST_TEST(p->first == "/scope");
    p = check_scope(json::parse(R"([{"machine":"m","agents":[]}])"));
    BOOST_REQUIRE(p);
    BOOST_TEST(p->first == "/scope/0/agents");
    p = check_scope(json::parse(R"([{"machine":"m","agents":["a"]},{"machine":"","agents":["a"]}])"));
    BOOST_REQUIRE(p);
    BOOST_TEST(p->first == "/scope/1/machine");
    p = check_scope(json::parse(R"([{"machine":"m","agents":["a"],"x":1}])"));
    BOOST_REQUIRE(p);
    BOOST_TEST(p->first == "/scope/0/x");
}

BOOST_AUTO_TEST_CASE(machine_axis) {
    auto any = json::parse(R"([{"machine":"*","agents":["*"]}])").as_array();
    auto box = json::parse(R"([{"machine":"box","agents":["*"]},{"machine":"laptop","agents":["claude"]}])").as_array();
    BOOST_TEST(in_machine_scope(any, "anything"));
    BOOST_TEST(in_machine_scope(box, "laptop"));
    BOOST_TEST(!in_machine_scope(box, "server"));
}

BOOST_AUTO_TEST_CASE(names) {
    BOOST_TEST(valid_name("a"));
    BOOST_TEST(valid_name("My_server-2"));
    BOOST_TEST(valid_name(std::string(64, 'x')));
    BOOST_TEST(!valid_name(std::string(65, 'x')));
    BOOST_TEST(!valid_name(""));
    BOOST_TEST(!valid_name("a b"));
    BOOST_TEST(!valid_name("a:b"));
    BOOST_TEST(!valid_name("é"));
}

BOOST_AUTO_TEST_SUITE_END()
