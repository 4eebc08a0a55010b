// A provider's server instructions riding on its tools/list results (coffer/mcp_instructions.hpp):
// inserted into the raw text with the rest byte for byte, other _meta members kept, read back by
// the raw scanner, and nothing done to what is not an object.
#define BOOST_TEST_MODULE sdk_mcp_instructions
#include <boost/test/unit_test.hpp>

#include <coffer/mcp_instructions.hpp>

#include <boost/json.hpp>

namespace mi = coffer::mcp_instructions;

BOOST_AUTO_TEST_CASE(attach_and_read_back) {
    std::string list = R"({"tools":[{"name":"t","inputSchema":{"type":"object","x":0.5}}],"nextCursor":"c"})";
    auto with = mi::attach(list, "Use \"t\" for\nledgers.");
    BOOST_TEST(mi::read(with).value_or("") == "Use \"t\" for\nledgers.");
    BOOST_TEST(with.find(R"({"tools":[{"name":"t","inputSchema":{"type":"object","x":0.5}}],"nextCursor":"c"})") ==
               std::string::npos);  // a member was inserted …
    BOOST_TEST(with.find(R"("tools":[{"name":"t","inputSchema":{"type":"object","x":0.5}}],"nextCursor":"c"})") !=
               std::string::npos);  // … and the rest is byte for byte (0.5 is not re-printed)
    auto parsed = boost::json::parse(with);
    BOOST_TEST(parsed.at("tools").as_array().size() == 1u);

    // An existing _meta keeps its members.
    auto meta = mi::attach(R"({"_meta":{"a":1},"tools":[]})", "hi");
    BOOST_TEST(mi::read(meta).value_or("") == "hi");
    BOOST_TEST(boost::json::parse(meta).at("_meta").at("a").as_int64() == 1);

    // Nothing to attach, or nothing to attach to.
    BOOST_TEST(mi::attach(list, "") == list);
    BOOST_TEST(mi::attach("[1,2]", "x") == "[1,2]");
    BOOST_TEST(mi::attach("{\"broken\":", "x") == "{\"broken\":");
    BOOST_TEST(!mi::read(list));
    BOOST_TEST(!mi::read(R"({"_meta":{"io.coffer/serverInstructions":7}})"));
    BOOST_TEST(!mi::read("not json"));
}
