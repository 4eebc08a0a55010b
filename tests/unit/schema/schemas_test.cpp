// Every schema in schemas/ compiles with the daemon's validator, and sample REST documents
// (the shapes docs/rest-api.md promises) validate — or fail — as they should.
#define BOOST_TEST_MODULE schemas
#include <boost/test/unit_test.hpp>

#include "schema/validator.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
namespace json = boost::json;
using coffer::schema::Validator;

namespace {
json::value load(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}
Validator compile(const std::string& rel) {
    auto v = Validator::compile(load(fs::path(COFFER_SCHEMAS_DIR) / rel));
    BOOST_REQUIRE_MESSAGE(v.ok(), rel);
    return std::move(v).value();
}
}  // namespace

BOOST_AUTO_TEST_CASE(every_schema_compiles) {
    int n = 0;
    for (auto& e : fs::recursive_directory_iterator(COFFER_SCHEMAS_DIR)) {
        if (e.path().extension() != ".json") continue;
        auto v = Validator::compile(load(e.path()));
        BOOST_TEST(v.ok(), e.path().string() << ": " << (v.ok() ? "" : v.error().message));
        ++n;
    }
    BOOST_TEST(n >= 6);
}

BOOST_AUTO_TEST_CASE(rest_samples) {
    auto create = compile("rest/resource-create.schema.json");
    BOOST_TEST(create.validate(json::parse(R"({"kind":"hello","name":"h1","config":{}})")).empty());
    auto bad = create.validate(json::parse(R"({"kind":"Hello","name":"a b","extra":1})"));
    BOOST_TEST(bad.size() == 3u);
    auto scope_bad = create.validate(json::parse(R"({"kind":"k","name":"n","scope":[{"machine":"*"}]})"));
    BOOST_REQUIRE(!scope_bad.empty());
    BOOST_TEST(scope_bad[0].pointer == "/scope/0/agents");

    auto err = compile("rest/error.schema.json");
    BOOST_TEST(err.validate(json::parse(
                   R"({"error":{"code":"VALIDATION_FAILED","message":"m","details":{"errors":[{"pointer":"/config","message":"x"}]}}})"))
                   .empty());
    BOOST_TEST(!err.validate(json::parse(R"({"error":{"code":"NOPE","message":"m","details":{}}})")).empty());

    auto ret = compile("rest/retention-set.schema.json");
    BOOST_TEST(ret.validate(json::parse(R"({"days":null})")).empty());
    BOOST_TEST(ret.validate(json::parse(R"({"days":30})")).empty());
    BOOST_TEST(!ret.validate(json::parse(R"({"days":0})")).empty());

    auto status = compile("rest/daemon-status.schema.json");
    BOOST_TEST(status.validate(json::parse(
                   R"({"status":"ready","port":38470,"pid":12,"started_at":"t","version":"0.1.0","vault":"/v"})"))
                   .empty());
}
