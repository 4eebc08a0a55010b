// Task ids across the gateway (mcp/tasks.hpp): exposed as <server>__<id>, split back, rewritten in
// every result shape that carries one.
#include <boost/test/unit_test.hpp>

#include "mcp/tasks.hpp"

#include <boost/json.hpp>

using namespace coffer::mcp;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(task_ids)

BOOST_AUTO_TEST_CASE(expose_and_split) {
    BOOST_TEST(tasks::expose("ev", "6f1c-2a") == "ev__6f1c-2a");
    auto s = tasks::split("ev__6f1c__x");  // the first "__" separates: server names have none
    BOOST_REQUIRE(s);
    BOOST_TEST(s->first == "ev");
    BOOST_TEST(s->second == "6f1c__x");
    BOOST_TEST(!tasks::split("no-separator"));
    BOOST_TEST(!tasks::split("__id"));
    BOOST_TEST(!tasks::split("ev__"));
}

BOOST_AUTO_TEST_CASE(ids_rewritten_in_each_result_shape) {
    auto created = json::parse(tasks::expose_ids(
        "ev", "tools/call", R"({"task":{"taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null}})"));
    BOOST_TEST(created.at("task").at("taskId").as_string() == "ev__t1");
    BOOST_TEST(created.at("task").at("status").as_string() == "working");

    auto got = json::parse(tasks::expose_ids("ev", "tasks/get", R"({"taskId":"t1","status":"completed"})"));
    BOOST_TEST(got.at("taskId").as_string() == "ev__t1");

    auto list = json::parse(tasks::expose_ids("ev", "tasks/list", R"({"tasks":[{"taskId":"a"},{"taskId":"b"}]})"));
    BOOST_TEST(list.at("tasks").at(0).at("taskId").as_string() == "ev__a");
    BOOST_TEST(list.at("tasks").at(1).at("taskId").as_string() == "ev__b");

    auto payload = json::parse(tasks::expose_ids(
        "ev", "tasks/result",
        R"({"content":[{"type":"text","text":"taskId in text stays"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}})"));
    BOOST_TEST(payload.at("_meta").at("io.modelcontextprotocol/related-task").at("taskId").as_string() == "ev__t1");
    BOOST_TEST(payload.at("content").at(0).at("text").as_string() == "taskId in text stays");

    // Results without ids come back byte for byte.
    std::string plain = R"({"content":[{"type":"text","text":"hi"}], "isError": false})";
    BOOST_TEST(tasks::expose_ids("ev", "tools/call", plain) == plain);
}

BOOST_AUTO_TEST_CASE(created_task_ids) {
    BOOST_TEST(tasks::created_task(R"({"task":{"taskId":"t9","status":"working"}})").value_or("") == "t9");
    BOOST_TEST(!tasks::created_task(R"({"content":[]})"));
    BOOST_TEST(!tasks::created_task(R"({"task":{"status":"working"}})"));
}

BOOST_AUTO_TEST_SUITE_END()
