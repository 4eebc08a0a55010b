// REST input the daemon must refuse or answer carefully: a key given twice in a request body (at
// any depth) is a 400 naming the key and its JSON pointer, and nothing is created; a body that is
// not UTF-8 is a 400 that says so; an error message echoing bytes that are not UTF-8 (a name from
// the path) is still valid JSON.
#define BOOST_TEST_MODULE rest_input
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

using namespace coffer::test;
namespace json = boost::json;

namespace {

struct Fixture : StartedDaemon {
    Fixture() : StartedDaemon({"test_kind"}) {}
    // The reply's body, which must be valid JSON (UTF-8 included: boost::json::parse checks it).
    json::value call(const std::string& method, const std::string& target, const std::string& body, int expect) {
        auto r = d.call(method, target, body);
        BOOST_TEST(r.status == expect, method << " " << target << " -> " << r.status << " " << r.body);
        boost::system::error_code ec;
        auto v = json::parse(r.body, ec);
        BOOST_TEST(!ec, "the reply is not valid JSON: " << r.body);
        return ec ? json::value(nullptr) : v;
    }
    std::size_t resources() { return call("GET", "/api/v1/resources", "", 200).at("resources").as_array().size(); }
};

const json::value& details(const json::value& v) { return v.at("error").at("details"); }

}  // namespace

BOOST_FIXTURE_TEST_CASE(duplicate_keys_are_refused_at_any_depth, Fixture) {
    // The issue's example: with the last value kept, this would create an mcp_server.
    auto v = call("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"a","kind":"mcp_server","config":{}})", 400);
    BOOST_TEST(v.at("error").at("code").as_string() == "BAD_REQUEST");
    BOOST_TEST(details(v).at("reason").as_string() == "duplicate_key");
    BOOST_TEST(details(v).at("key").as_string() == "kind");
    BOOST_TEST(details(v).at("pointer").as_string() == "/kind");
    BOOST_TEST(std::string(v.at("error").at("message").as_string()).find("duplicate key \"kind\" at /kind") !=
               std::string::npos);

    v = call("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"b","config":{"value":1,"label":"x","value":2}})",
             400);
    BOOST_TEST(details(v).at("pointer").as_string() == "/config/value");
    BOOST_TEST(resources() == 0u);

    call("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"c","config":{"value":1}})", 201);
    v = call("PATCH", "/api/v1/resources/test_kind/c", R"({"description":"x","description":"y"})", 400);
    BOOST_TEST(details(v).at("pointer").as_string() == "/description");
    v = call("POST", "/api/v1/resources/test_kind/c/actions/echo", R"({"a":[{"b":1,"b":2}]})", 400);
    BOOST_TEST(details(v).at("pointer").as_string() == "/a/0/b");
    v = call("PUT", "/api/v1/retention/audit", R"({"days":30,"days":null})", 400);
    BOOST_TEST(details(v).at("pointer").as_string() == "/days");

    // A credential's value is never echoed, not even in this refusal.
    v = call("POST", "/api/v1/credentials", R"({"ref":"r","value":"s3cret-one","value":"s3cret-two"})", 400);
    BOOST_TEST(details(v).at("pointer").as_string() == "/value");
    BOOST_TEST(json::serialize(v).find("s3cret") == std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(bodies_that_are_not_utf8_are_named_as_such, Fixture) {
    auto v = call("POST", "/api/v1/credentials", "{\"ref\":\"r\",\"value\":\"\xff\xfe\"}", 400);
    BOOST_TEST(details(v).at("reason").as_string() == "invalid_utf8");
    BOOST_TEST(details(v).at("offset").as_int64() == 20);
    BOOST_TEST(std::string(v.at("error").at("message").as_string()).find("not valid UTF-8 at byte 20") !=
               std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(errors_echoing_invalid_utf8_are_valid_json, Fixture) {
    // Each target's error message echoes a path segment holding a byte that is not UTF-8.
    const std::pair<std::string, std::string> cases[] = {
        {"/api/v1/resources/sk%FFill/x", "no resource sk\\xffill:x"},  // the issue's example
        {"/api/v1/resources/test_kind/x%C3", "x\\xc3"},
        {"/api/v1/resources/test_kind/x/actions/%FE", ""},
        {"/api/v1/credentials/r%FF/exists", ""},
        {"/api/v1/no%FFsuch", "no\\xffsuch"},
    };
    for (const auto& [target, shown] : cases) {
        auto r = d.call("GET", target);
        BOOST_TEST(r.status >= 400, target);
        boost::system::error_code ec;
        auto v = json::parse(r.body, ec);  // refuses invalid UTF-8
        BOOST_TEST(!ec, target << ": " << r.body);
        if (ec || shown.empty()) continue;
        auto message = std::string(v.at("error").at("message").as_string());
        BOOST_TEST(message.find(shown) != std::string::npos, target << ": " << message);
    }
}
