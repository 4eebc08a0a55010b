#define BOOST_TEST_MODULE plugin
#include <boost/test/unit_test.hpp>

#include "plugin/manifest.hpp"

using namespace coffer::plugin;

BOOST_AUTO_TEST_SUITE(manifest)

BOOST_AUTO_TEST_CASE(valid) {
    auto m = parse_manifest_text(
        R"({"name":"hello_kind","version":"1.0.0","abi":{"major":1,"minor":0},"library":"libhello_kind.so","kinds":["hello"]})",
        "/p/hello_kind.plugin.json");
    BOOST_REQUIRE(m.ok());
    BOOST_TEST(m->name == "hello_kind");
    BOOST_TEST(m->library == "/p/libhello_kind.so");
    BOOST_TEST(m->kinds.size() == 1u);
    BOOST_TEST(m->abi_major == 1);
}

BOOST_AUTO_TEST_CASE(invalid_cases_name_the_field) {
    struct Case {
        const char* text;
        const char* expect;
    } cases[] = {
        {"{", "not valid JSON"},
        {"[]", "JSON object"},
        {R"({"version":"1","abi":{"major":1,"minor":0},"library":"a.so","kinds":[]})", "\"name\""},
        {R"({"name":"Bad Name","version":"1","abi":{"major":1,"minor":0},"library":"a.so","kinds":[]})", "\"name\""},
        {R"({"name":"a","abi":{"major":1,"minor":0},"library":"a.so","kinds":[]})", "\"version\""},
        {R"({"name":"a","version":"1","abi":{"major":1,"minor":0},"library":"../a.so","kinds":[]})", "\"library\""},
        {R"({"name":"a","version":"1","abi":{"major":1,"minor":0},"library":"/abs/a.so","kinds":[]})", "\"library\""},
        {R"({"name":"a","version":"1","abi":1,"library":"a.so","kinds":[]})", "\"abi\""},
        {R"({"name":"a","version":"1","abi":{"major":"1","minor":0},"library":"a.so","kinds":[]})", "abi.major"},
        {R"({"name":"a","version":"1","abi":{"major":1,"minor":0},"library":"a.so","kinds":"x"})", "\"kinds\""},
        {R"({"name":"a","version":"1","abi":{"major":1,"minor":0},"library":"a.so","kinds":["Bad"]})", "kind"},
    };
    for (auto& c : cases) {
        auto m = parse_manifest_text(c.text, "/p/x.plugin.json");
        BOOST_REQUIRE(!m.ok());
        BOOST_TEST(m.error().message.find(c.expect) != std::string::npos, c.text << " -> " << m.error().message);
        BOOST_TEST(m.error().message.find("x.plugin.json") != std::string::npos);
    }
}

BOOST_AUTO_TEST_SUITE_END()
