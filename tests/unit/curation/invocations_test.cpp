// The invocation log: record() only queues; the service thread writes batches after the delay;
// every field is stored as given; newest first, filtered by server; beyond max_queued records are
// dropped and counted; flush() writes what is queued at once.
#include <boost/test/unit_test.hpp>

#include "curation/invocations.hpp"
#include "store/migrations.hpp"
#include "temp_dir.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>

using namespace coffer;
using namespace coffer::curation;
namespace json = boost::json;

namespace {

struct Log {
    test::TempDir dir{"invocations"};
    std::unique_ptr<store::Database> db = store::Database::open(dir / "coffer.db").value();
    boost::asio::io_context service;
    Log() { BOOST_REQUIRE(store::migrate(*db).ok()); }

    std::int64_t rows() {
        auto st = db->prepare("SELECT count(*) FROM mcp_invocations").value();
        BOOST_REQUIRE(*st.step());
        return st.int64(0);
    }
};

Invocation call(std::string server, std::string target, std::string_view how = outcome::ok) {
    Invocation i;
    i.ts_ms = 1'700'000'000'000;
    i.session = "s1";
    i.agent = "claude";
    i.server = std::move(server);
    i.target = std::move(target);
    i.duration_ms = 12;
    i.outcome = std::string(how);
    return i;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(invocations)

BOOST_FIXTURE_TEST_CASE(records_are_written_by_the_service_thread_only, Log) {
    InvocationLog log(*db, service.get_executor(), {std::chrono::milliseconds(1), 1000, 100});
    log.record(call("up", "up__echo"));
    BOOST_TEST(log.recorded() == 1u);
    BOOST_TEST(rows() == 0);  // queued, nothing written on the caller's thread
    service.run();
    BOOST_TEST(log.written() == 1u);
    BOOST_TEST(rows() == 1);
}

BOOST_FIXTURE_TEST_CASE(every_field_is_stored_newest_first_and_filtered, Log) {
    InvocationLog log(*db, service.get_executor(), {std::chrono::milliseconds(1), 1000, 100});
    auto failed = call("up", "up__fail", outcome::error);
    failed.error_code = -32603;
    failed.type = Type::prompt;
    log.record(call("up", "up__echo"));
    log.record(call("other", "other__x", outcome::disabled));
    log.record(failed);
    service.run();

    auto all = list_invocations(*db, std::nullopt, 10).value();
    BOOST_REQUIRE(all.size() == 3u);
    auto& newest = all[0].as_object();
    BOOST_TEST(newest.at("target").as_string() == "up__fail");
    BOOST_TEST(newest.at("type").as_string() == "prompt");
    BOOST_TEST(newest.at("outcome").as_string() == "error");
    BOOST_TEST(newest.at("error_code").as_int64() == -32603);
    BOOST_TEST(newest.at("session").as_string() == "s1");
    BOOST_TEST(newest.at("agent").as_string() == "claude");
    BOOST_TEST(newest.at("duration_ms").as_int64() == 12);
    BOOST_TEST(newest.at("ts").as_string() == "2023-11-14T22:13:20.000Z");
    BOOST_TEST(all[2].at("error_code").is_null());

    auto up = list_invocations(*db, std::string("up"), 10).value();
    BOOST_REQUIRE(up.size() == 2u);
    for (auto& r : up) BOOST_TEST(r.at("server").as_string() == "up");
    BOOST_TEST(list_invocations(*db, std::nullopt, 1).value().size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(batches_split_a_long_queue, Log) {
    InvocationLog log(*db, service.get_executor(), {std::chrono::milliseconds(1), 7, 1000});
    for (int i = 0; i < 50; ++i) log.record(call("up", "up__t" + std::to_string(i)));
    // One handler turn writes one batch.
    while (log.written() == 0) service.run_one();
    BOOST_TEST(log.written() == 7u);
    service.run();
    BOOST_TEST(log.written() == 50u);
    BOOST_TEST(rows() == 50);
}

BOOST_FIXTURE_TEST_CASE(a_full_queue_drops_and_counts, Log) {
    InvocationLog log(*db, service.get_executor(), {std::chrono::milliseconds(1), 1000, 3});
    for (int i = 0; i < 5; ++i) log.record(call("up", "up__echo"));
    BOOST_TEST(log.recorded() == 3u);
    BOOST_TEST(log.dropped() == 2u);
    service.run();
    BOOST_TEST(rows() == 3);
    // Written out, the queue has room again.
    log.record(call("up", "up__echo"));
    BOOST_TEST(log.dropped() == 2u);
    service.restart();
    service.run();
    BOOST_TEST(rows() == 4);
}

BOOST_FIXTURE_TEST_CASE(flush_writes_what_is_queued_now, Log) {
    InvocationLog log(*db, service.get_executor(), {std::chrono::hours(1), 1000, 100});
    log.record(call("up", "up__a"));
    log.record(call("up", "up__b"));
    log.flush();
    BOOST_TEST(rows() == 2);
    BOOST_TEST(log.written() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
